import type { SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { configureCoercion } from "@conform-to/zod/v4/future";
import type { TFunction } from "i18next";
import { z } from "zod";
import type { $ZodIssue } from "zod/v4/core";
import { sayIssue } from "../i18n/message";

// Text arrives exactly as typed, "" included, as the domain schemas expect ("Enter your name.").
const { coerceFormValue } = configureCoercion({ stripEmptyString: (value) => value });

/** Errors are said with `t`, the page's in the browser and the request's in an action. */
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

/** Conform 1.21 reads string lengths from a zod internal 4.6 no longer fills, so lengths come from zod's public API. */
export function constraintOf(schema: z.ZodType): Record<string, Constraint> {
  // A schema that computes its output is read on its input side: conform cannot read a transform.
  const input = innermost(schema);
  const constraint = getZodConstraint(input);
  const shape = input instanceof z.core.$ZodObject ? input._zod.def.shape : {};
  for (const [name, field] of Object.entries(shape)) {
    const leaf = innermost(field);
    if (!(leaf instanceof z.ZodString || leaf instanceof z.ZodStringFormat)) continue;
    const entry = constraint[name] ?? {};
    constraint[name] = entry;
    if (typeof leaf.minLength === "number" && leaf.minLength > 0) entry.minLength = leaf.minLength;
    if (typeof leaf.maxLength === "number") entry.maxLength = leaf.maxLength;
  }
  return constraint;
}

export type FieldErrors = Record<string, string>;

/** `submission` is present only when the refusal came from validation (app/http/responses.ts). */
export type FormFailure = {
  error: string;
  ok: false;
  intent?: string;
  errors: FieldErrors;
  formError: string | null;
  submission?: SubmissionResult<string[]>;
};

/** Their values are never sent back to the page. */
export const SECRET_FIELD = /password|confirm|secret|token|api.?key/i;

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
