import { type DefaultValue, getFormProps, useForm } from "@conform-to/react";
import { useEffect, useMemo, useRef } from "react";
import { useActionData } from "react-router";
import type { z } from "zod";
import { constraintOf, parseSubmission, toLastResult } from "../../http/submission";
import { useTranslation } from "../../i18n/use-translation";
import { useIsPending } from "./use-is-pending";

export { getFormProps };

// The form's fields as the schema takes them in: conform's types read field names and list
// fields from this, so a default value is checked against the schema (no index signature).
type Values<S extends z.ZodType> = Extract<z.input<S>, Record<string, unknown>>;

export type AppFormOptions<S extends z.ZodType> = {
  /** The domain's schema for this form: the same one the action parses with. */
  schema: S;
  /** A stable id when the page has several forms (also the `form` attribute of outside buttons). */
  id?: string;
  /**
   * The intent this form submits (`name="intent" value=...`): only answers carrying it are this
   * form's, and only its own submission resets it.
   */
  intent?: string;
  /** Where the form posts when not to its own route (also what a fetcher posts to). */
  action?: string;
  /** The answer to read instead of the route's actionData, e.g. `fetcher.data`. */
  lastResult?: unknown;
  defaultValue?: DefaultValue<Values<S>>;
};

/**
 * The one way a page builds a form: conform with the domain schema on both sides. Fields are
 * checked when left and re-checked while typed; a refused submit moves focus to the first invalid
 * field (conform) or, when only the form as a whole was refused, to the error summary; password
 * fields are emptied after a refusal; the form is reset once a submission of it succeeds
 * (an `ok: true` answer, or a redirect).
 */
export function useAppForm<S extends z.ZodType>(options: AppFormOptions<S>) {
  const { schema, intent } = options;
  const actionData = useActionData();
  const answer = options.lastResult !== undefined ? options.lastResult : actionData;
  const own =
    intent === undefined || (answer as { intent?: unknown } | undefined)?.intent === intent
      ? answer
      : undefined;
  const lastResult = useMemo(() => toLastResult(own), [own]);
  const constraint = useMemo(() => constraintOf(schema), [schema]);
  // The browser's own check says the schema's message keys in the page's language; the server's
  // answer arrives already said in it (app/http/form.server.ts).
  const { t } = useTranslation();

  const [form, fields] = useForm<Values<S>, z.output<S>>({
    id: options.id,
    lastResult,
    constraint,
    defaultValue: options.defaultValue,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseSubmission(formData, schema, t),
  });

  // After a refusal from the server: nothing secret stays on screen, and when no field is to
  // blame (wrong password, rate limit) focus goes to the summary that says why. Conform reports
  // the answer in a layout effect and the summary renders after that, so it is looked up on the
  // next frame. (A field to blame gets focus from conform itself.)
  useEffect(() => {
    if (lastResult?.status !== "error") return;
    const element = document.getElementById(form.id);
    if (!(element instanceof HTMLFormElement)) return;
    for (const input of element.querySelectorAll<HTMLInputElement>('input[type="password"]'))
      input.value = "";
    if (Object.keys(lastResult.error ?? {}).some((name) => name !== "")) return;
    const frame = requestAnimationFrame(() => document.getElementById(form.errorId)?.focus());
    return () => cancelAnimationFrame(frame);
  }, [lastResult, form.id, form.errorId]);

  // A submission of this form that ended without a refusal succeeded: start afresh.
  const pending = useIsPending({ intent, formAction: options.action });
  const wasPending = useRef(false);
  useEffect(() => {
    if (pending) {
      wasPending.current = true;
      return;
    }
    if (!wasPending.current) return;
    wasPending.current = false;
    if (lastResult?.status === "error") return;
    const element = document.getElementById(form.id);
    if (element instanceof HTMLFormElement) element.reset();
  }, [pending, lastResult, form.id]);

  return [form, fields] as const;
}
