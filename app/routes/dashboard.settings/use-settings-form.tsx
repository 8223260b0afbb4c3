import { useEffect, useRef } from "react";
import type { FetcherWithComponents, useFetcher } from "react-router";
import type { z } from "zod";
import { FormErrors } from "../../components/forms/fields";
import { type AppFormOptions, getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { focusRing } from "../../components/ui/button";

type Answer = { ok: boolean; intent?: string; message?: string };

/** Typed by the page's action: `useFetcher<typeof action>()` with `import type { action } from "./route"`. */
export type SettingsFetcher<Action> = ReturnType<typeof useFetcher<Action>>;

/** Each section keeps its own fetcher, so its pending state and answer stay its own. */
export function useSettingsForm<S extends z.ZodType, Data extends Answer>(
  intent: string,
  schema: S,
  options: {
    /** Made outside a form that is remounted (keyed) when its answer must stay. */
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
 * A status shown again elsewhere with the same answer must not take focus from where the person
 * has gone meanwhile (flaky in e2e/two-factor.spec.ts otherwise).
 */
const announced = new WeakSet<object>();

/** Focus moves here on a success so it is read out at once. */
export function SectionStatus({ answer }: { answer: { ok: boolean; message?: string } | undefined }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!answer?.ok) return;
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

/** Row actions have no conform form to show a refusal's `formError`. */
export function RowRefusal({ answer }: { answer: object | undefined }) {
  const reason =
    answer && "formError" in answer && typeof answer.formError === "string" ? answer.formError : null;
  return reason ? (
    <p role="alert" className="text-sm text-destructive">
      {reason}
    </p>
  ) : null;
}
