import { useEffect, useRef } from "react";
import type { FetcherWithComponents, useFetcher } from "react-router";
import type { z } from "zod";
import { FormErrors } from "../../components/forms/fields";
import { type AppFormOptions, getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { focusRing } from "../../components/ui/button";

/** What every Settings answer carries: done() (app/settings/answers.server.ts) or a refusal. */
type Answer = { ok: boolean; intent?: string; message?: string };

/**
 * A section's fetcher typed by the action of the page it posts to: `useFetcher<typeof action>()`,
 * with `import type { action } from "./route"`.
 */
export type SettingsFetcher<Action> = ReturnType<typeof useFetcher<Action>>;

/**
 * One Settings section's form on the form pipeline: its own fetcher (each section keeps its own
 * pending state and answer), conform with the domain's schema, reset after a success, the answer
 * in a status line that takes focus.
 */
export function useSettingsForm<S extends z.ZodType, Data extends Answer>(
  intent: string,
  schema: S,
  options: {
    /**
     * The section's fetcher, `useFetcher<typeof action>()`: its answers are typed by the
     * page's action. Made outside a form that is remounted (keyed) when its answer must stay.
     */
    fetcher: FetcherWithComponents<Data>;
    defaultValue?: AppFormOptions<S>["defaultValue"];
    id?: string;
  },
) {
  const { fetcher } = options;
  const answer = fetcher.data?.intent === intent ? fetcher.data : undefined;
  const [form, fields] = useAppForm({
    schema,
    intent,
    id: options.id ?? `settings-${intent}`,
    lastResult: fetcher.data,
    defaultValue: options.defaultValue,
  });
  const pending = useIsPending({ intent });
  const status = <SectionStatus answer={answer} />;
  const errors = <FormErrors form={form} />;
  return { fetcher, form, fields, pending, formProps: getFormProps(form), status, errors };
}

/**
 * Answers whose status line has taken focus. A section may show its status in another place once
 * the page's data catches up (two-factor: "pending" becomes "on"); the status mounted there with
 * the same answer must not take focus again from where the person has gone meanwhile (the recovery
 * codes' Copy button, in 1 of 6 runs of e2e/two-factor.spec.ts), only pick up a focus the old line
 * took with it when it unmounted.
 */
const announced = new WeakSet<object>();

/** The answer to a section's submit; focus moves here on a success so it is read out at once. */
export function SectionStatus({ answer }: { answer: { ok: boolean; message?: string } | undefined }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!answer?.ok) return;
    // Shown again elsewhere: focus comes back only if it left with the old line (then it is on
    // the body), never from where the person has gone.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (announced.has(answer) && !lost) return;
    announced.add(answer);
    ref.current?.focus();
  }, [answer]);
  return (
    <p ref={ref} role="status" tabIndex={-1} className={`text-sm text-success ${focusRing}`}>
      {answer?.ok ? answer.message : null}
    </p>
  );
}

/**
 * Why a row's own action (rotate, delete, send a test) was refused: a refusal's `formError`, e.g. the
 * endpoint another admin removed meanwhile. Row actions have no conform form to show it.
 */
export function RowRefusal({ answer }: { answer: object | undefined }) {
  const reason =
    answer && "formError" in answer && typeof answer.formError === "string" ? answer.formError : null;
  return reason ? (
    <p role="alert" className="text-sm text-destructive">
      {reason}
    </p>
  ) : null;
}
