import { type DefaultValue, getFormProps, useForm } from "@conform-to/react";
import { useEffect, useMemo, useRef } from "react";
import { useActionData } from "react-router";
import type { z } from "zod";
import { constraintOf, parseSubmission, toLastResult } from "../../http/submission";
import { useTranslation } from "../../i18n/use-translation";
import { useIsPending } from "./use-is-pending";

export { getFormProps };

// No index signature, so conform checks a default value against the schema.
type Values<S extends z.ZodType> = Extract<z.input<S>, Record<string, unknown>>;

export type AppFormOptions<S extends z.ZodType> = {
  /** The same schema the action parses with. */
  schema: S;
  /** Also the `form` attribute of outside buttons. */
  id?: string;
  /** Only answers carrying this intent are this form's, and only its own submission resets it. */
  intent?: string;
  action?: string;
  lastResult?: unknown;
  defaultValue?: DefaultValue<Values<S>>;
};

// A form re-keyed to take fresh defaults (`key={record.updated_at}`) is a new element; the focus
// that was in the old one comes back to its twin, by its place among the form's controls.
const focusIn = new Map<string, number>();

function useFocusKeptAcrossRemount(formId: string) {
  useEffect(() => {
    const element = document.getElementById(formId);
    if (!(element instanceof HTMLFormElement)) return;
    const inside = (e: FocusEvent) => {
      const index = Array.prototype.indexOf.call(element.elements, e.target);
      if (index !== -1) focusIn.set(formId, index);
    };
    // Leaving for another control, or a click elsewhere: nothing to bring back (the same form met
    // again on another person's page takes no focus). A control removed with its form fires no focusout.
    const outside = (e: FocusEvent) => {
      if (e.relatedTarget instanceof Node && !element.contains(e.relatedTarget)) focusIn.delete(formId);
    };
    const pressed = (e: PointerEvent) => {
      if (!(e.target instanceof Node && element.contains(e.target))) focusIn.delete(formId);
    };
    element.addEventListener("focusin", inside);
    element.addEventListener("focusout", outside);
    document.addEventListener("pointerdown", pressed);
    const at = focusIn.get(formId);
    focusIn.delete(formId);
    const active = document.activeElement;
    if (at !== undefined && (!active || active === document.body)) {
      const twin = element.elements[at];
      if (twin instanceof HTMLElement) twin.focus();
    }
    return () => {
      element.removeEventListener("focusin", inside);
      element.removeEventListener("focusout", outside);
      document.removeEventListener("pointerdown", pressed);
    };
  }, [formId]);
}

/** The one way a page builds a form: conform with the domain schema on both sides. */
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

  // After a server refusal no secret stays on screen; when no field is to blame, focus goes to the
  // summary, looked up on the next frame as conform reports in a layout effect.
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

  useFocusKeptAcrossRemount(form.id);

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
