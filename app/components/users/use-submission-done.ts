import { useEffect, useRef } from "react";
import { useActionData } from "react-router";
import { useIsPending } from "../forms/use-is-pending";

/**
 * Calls `onDone(ok)` once a submission of `intent` (or one of several) to this route has finished and the page shows
 * its result: `ok` is false when the action refused it (an answer carrying this intent), true when
 * it redirected or answered a success of its own (`answer`, e.g. an invitation that was not emailed).
 */
export function useSubmissionDone(
  intent: string | readonly string[],
  onDone: (ok: boolean, answer: { ok?: boolean; intent?: string } | undefined) => void,
) {
  const pending = useIsPending({ intent });
  const answer = useActionData() as { ok?: boolean; intent?: string } | undefined;
  const wasPending = useRef(false);
  const callback = useRef(onDone);
  callback.current = onDone;
  useEffect(() => {
    if (pending) {
      wasPending.current = true;
      return;
    }
    if (!wasPending.current) return;
    wasPending.current = false;
    callback.current(!(answer?.ok === false && [intent].flat().includes(String(answer.intent))), answer);
  }, [pending, answer, intent]);
}
