import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import type { z } from "zod";
import { FormErrors } from "../../components/forms/fields";
import { type AppFormOptions, getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { focusRing } from "../../components/ui/button";

type Answer = { ok: boolean; intent?: string; message?: string };
export type SettingsFetcher = ReturnType<typeof useFetcher<Answer>>;
export const useSettingsFetcher = () => useFetcher<Answer>();

/**
 * One Settings section's form on the form pipeline: its own fetcher (each section keeps its own
 * pending state and answer), conform with the domain's schema, reset after a success, the answer
 * in a status line that takes focus.
 */
export function useSettingsForm<S extends z.ZodType>(
  intent: string,
  schema: S,
  options: {
    defaultValue?: AppFormOptions<S>["defaultValue"];
    id?: string;
    /** The section's fetcher when the form is remounted (keyed) but its answer must stay. */
    fetcher?: SettingsFetcher;
  } = {},
) {
  const own = useFetcher<Answer>();
  const fetcher = options.fetcher ?? own;
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

/** The answer to a section's submit; focus moves here on a success so it is read out at once. */
export function SectionStatus({ answer }: { answer: { ok: boolean; message?: string } | undefined }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (answer?.ok) ref.current?.focus();
  }, [answer]);
  return (
    <p ref={ref} role="status" tabIndex={-1} className={`text-sm text-success ${focusRing}`}>
      {answer?.ok ? answer.message : null}
    </p>
  );
}
