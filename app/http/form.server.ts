import { data, redirect } from "react-router";
import type { z } from "zod";
import { RuleViolation } from "../access/rules.server";
import { type Toast, toastCookie } from "./toast.server";

export type FieldErrors = Record<string, string>;

/** Validates a form with a zod schema; errors are keyed by field for the form to show. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { ok: true; value: z.infer<S> } | { ok: false; errors: FieldErrors } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return { ok: false, errors };
}

export function invalid(errors: FieldErrors, intent?: string) {
  return data({ ok: false as const, intent, errors, formError: null as string | null }, { status: 400 });
}

export function refused(message: string, status = 403, intent?: string) {
  return data({ ok: false as const, intent, errors: {} as FieldErrors, formError: message }, { status });
}

export async function redirectWithToast(to: string, toast: Toast): Promise<never> {
  throw redirect(to, { headers: { "Set-Cookie": await toastCookie(toast) } });
}

/** Turns a product rule violation into a 403 the form can show; rethrows anything else. */
export function ruleToResponse(error: unknown, intent?: string) {
  if (error instanceof RuleViolation) return refused(error.message, 403, intent);
  throw error;
}

export function notFound(message = "Not found") {
  return data({ message }, { status: 404 });
}
