import type { SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { configureCoercion } from "@conform-to/zod/v4/future";
import type { TFunction } from "i18next";
import { z } from "zod";
import type { $ZodIssue } from "zod/v4/core";
import { sayIssue } from "../i18n/message";

// The form pipeline's shared half, used by actions (through form.server.ts) and by the browser
// (components/forms): one parse of a form against the domain's zod schema, and the answer's shape.

// Text arrives exactly as typed, "" included: the domain schemas were written for that, so an
// empty name says "Enter your name." rather than a type error. Conform's coercion still turns one
// ticked checkbox into an array and none into [], as schemas with z.array expect.
const { coerceFormValue } = configureCoercion({ stripEmptyString: (value) => value });

/**
 * Conform's parse of a form against a domain schema: `status`, `value` or `error`, and `reply()`.
 * The schema's messages are keys (app/i18n/message.ts); the errors are said with `t`, the page's
 * in the browser and the request's in an action, so the answer reads as the page does.
 */
export function parseSubmission<S extends z.ZodType>(
  form: FormData | URLSearchParams,
  schema: S,
  t: TFunction,
) {
  return parseWithZod(form, {
    schema: coerceFormValue(schema),
    disableAutoCoercion: true,
    formatError: (issues: $ZodIssue[]) => issues.map((issue) => sayIssue(t, issue)),
  });
}

type Constraint = ReturnType<typeof getZodConstraint>[string];

/** The string schema a field's rule rests on: through optional/default wrappers and pipes' input side. */
function innermost(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.core.$ZodPipe) return innermost(schema._zod.def.in);
  if (
    schema instanceof z.core.$ZodOptional ||
    schema instanceof z.core.$ZodNullable ||
    schema instanceof z.core.$ZodDefault ||
    schema instanceof z.core.$ZodReadonly
  )
    return innermost(schema._zod.def.innerType);
  return schema;
}

/**
 * The browser's own constraints (required, minlength, maxlength) from the schema, so no page copies
 * a limit by hand. Conform 1.21 reads string lengths from an internal zod 4.6 no longer fills, so
 * lengths are taken from zod's public minLength/maxLength of each top-level string field.
 */
export function constraintOf(schema: z.ZodType): Record<string, Constraint> {
  // A schema that computes its output (app/settings/settings-form.ts) is read on its input side,
  // the form's fields: conform cannot read a transform.
  const input = innermost(schema);
  const constraint = getZodConstraint(input);
  const shape = input instanceof z.core.$ZodObject ? input._zod.def.shape : {};
  for (const [name, field] of Object.entries(shape)) {
    const leaf = innermost(field);
    // Plain strings and string formats (email, url) alike.
    if (!(leaf instanceof z.ZodString || leaf instanceof z.ZodStringFormat)) continue;
    const entry = constraint[name] ?? {};
    constraint[name] = entry;
    if (typeof leaf.minLength === "number" && leaf.minLength > 0) entry.minLength = leaf.minLength;
    if (typeof leaf.maxLength === "number") entry.maxLength = leaf.maxLength;
  }
  return constraint;
}

export type FieldErrors = Record<string, string>;

/**
 * What a page action answers when it refuses a form (400, 403, 404, 429, 502): the one refusal
 * body, `error` its code (app/http/responses.ts); `errors` holds the first message per top-level
 * field ("form" for the form as a whole), `formError` one message for the form. `submission` is
 * conform's reply (field errors in full, values minus passwords) and is present only when the
 * refusal came from validation.
 */
export type FormFailure = {
  error: string;
  ok: false;
  intent?: string;
  errors: FieldErrors;
  formError: string | null;
  submission?: SubmissionResult<string[]>;
};

/** Names a secret travels under; their values are never sent back to the page. */
export const SECRET_FIELD = /password|confirm|secret|token|api.?key/i;

/** Conform's error record ("roles[0]", "" for the form) flattened to the contract's `errors`. */
export function flattenErrors(error: Record<string, string[] | null> | null | undefined): FieldErrors {
  const out: FieldErrors = {};
  for (const [name, messages] of Object.entries(error ?? {})) {
    const message = messages?.[0];
    if (!message) continue;
    const key = name === "" ? "form" : name.split(/[.[]/)[0]!;
    out[key] ??= message;
  }
  return out;
}

/**
 * An action's answer as conform's `lastResult`: a refusal becomes an error result (field errors
 * under their names, the form's own under ""), a success (`ok: true`) resets the form.
 * Answers that are neither (a loader-like payload) are ignored.
 */
export function toLastResult(answer: unknown): SubmissionResult<string[]> | undefined {
  if (!answer || typeof answer !== "object") return undefined;
  const body = answer as Omit<Partial<FormFailure>, "ok"> & { ok?: boolean };
  if (body.ok === true) return { initialValue: null };
  const formError = typeof body.formError === "string" && body.formError ? body.formError : null;
  if (!body.submission && !body.errors && !formError) return undefined;
  const error: Record<string, string[]> = {};
  if (body.submission?.error) {
    for (const [name, messages] of Object.entries(body.submission.error))
      if (messages) error[name] = messages;
  } else {
    for (const [name, message] of Object.entries(body.errors ?? {}))
      error[name === "form" ? "" : name] = [message];
  }
  if (formError) error[""] = [formError, ...(error[""] ?? []).filter((m) => m !== formError)];
  return { ...body.submission, status: "error", error };
}
