import { useFetchers, useFormAction, useNavigation } from "react-router";

type Submission = { state: string; formAction?: string; formMethod?: string; formData?: FormData };

export type PendingFilter = {
  /** Only a submission whose `intent` field has this value (or one of these). */
  intent?: string | readonly string[];
  /** Only a submission to this action; defaults to the current route's own action. */
  formAction?: string;
  /** Defaults to POST. */
  formMethod?: string;
};

function pathOf(action: string | undefined) {
  return action === undefined ? undefined : new URL(action, "http://x").pathname;
}

/**
 * The one pending hook: true while a matching form submission (page navigation or fetcher) is in
 * flight, from the click until the data it changed has been loaded again, so a button never
 * flips back to idle before the page shows the result.
 */
export function useIsPending({ intent, formAction, formMethod = "POST" }: PendingFilter = {}): boolean {
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const ownAction = useFormAction();
  const action = pathOf(formAction ?? ownAction);
  const matches = (s: Submission) =>
    s.state !== "idle" &&
    s.formMethod?.toUpperCase() === formMethod.toUpperCase() &&
    pathOf(s.formAction) === action &&
    (intent === undefined || [intent].flat().includes(String(s.formData?.get("intent"))));
  return matches(navigation) || fetchers.some(matches);
}
