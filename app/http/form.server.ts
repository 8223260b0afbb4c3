import type { TFunction } from "i18next";
import { redirect } from "react-router";
import { z } from "zod";
import { Conflict, InvalidInput, MailSendError, NotFound, RuleViolation } from "../domain-errors";
import { type Message, type MessageKey, say, sayIssue } from "../i18n/message";
import { RateLimitedError } from "../security/rate-limit.server";
import { refusal, tooManyRequestsForm } from "./responses";
import { type FieldErrors, flattenErrors, parseSubmission, SECRET_FIELD } from "./submission";
import { type Toast, toastCookie } from "./toast.server";

export type { FieldErrors };
export { parseSubmission };

const CODES: Record<number, string> = {
  400: "invalid_request",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "gone",
  429: "rate_limited",
  502: "mail_failed",
};

/** Secret fields are left out of conform's reply so the page never re-fills them. */
export function invalidSubmission(
  submission: ReturnType<typeof parseSubmission>,
  intent?: string,
  options: { hideFields?: string[] } = {},
) {
  const error = submission.status === "success" ? {} : (submission.error ?? {});
  const names = Object.keys(submission.payload);
  const hideFields = options.hideFields ?? names.filter((name) => SECRET_FIELD.test(name));
  return refusal(400, CODES[400]!, {
    ok: false as const,
    intent,
    errors: flattenErrors(error),
    formError: null as string | null,
    submission: submission.reply({ hideFields }),
  });
}

/** A field the schema passed but the server refuses (a breached password): said as a field error. */
export function refuseField(
  submission: ReturnType<typeof parseSubmission>,
  field: string,
  message: string,
  intent?: string,
) {
  const hideFields = Object.keys(submission.payload).filter((name) => SECRET_FIELD.test(name));
  return refusal(400, CODES[400]!, {
    ok: false as const,
    intent,
    errors: { [field]: message } as FieldErrors,
    formError: null as string | null,
    submission: submission.reply({ fieldErrors: { [field]: [message] }, hideFields }),
  });
}

export function invalid(errors: FieldErrors, intent?: string) {
  return refusal(400, CODES[400]!, { ok: false as const, intent, errors, formError: null as string | null });
}

export function refused(t: TFunction, message: Message | MessageKey, status = 403, intent?: string) {
  return refusal(status, CODES[status] ?? "refused", {
    ok: false as const,
    intent,
    errors: {} as FieldErrors,
    formError: say(t, message) as string | null,
  });
}

/** The error boundary shows the message as it is. */
export function pageRefusal(t: TFunction, message: Message | MessageKey, status: number) {
  return refusal(status, CODES[status] ?? "refused", { message: say(t, message) });
}

export async function redirectWithToast(to: string, toast: Toast): Promise<never> {
  throw redirect(to, { headers: { "Set-Cookie": await toastCookie(toast) } });
}

/** The one mapping from a domain failure to the form's answer; anything else (a redirect, a bug) is rethrown. */
export function actionError(error: unknown, t: TFunction, intent?: string) {
  if (error instanceof RuleViolation) return refused(t, error.said, 403, intent);
  if (error instanceof NotFound) return refused(t, error.said, 404, intent);
  if (error instanceof Conflict) return refused(t, error.said, 409, intent);
  if (error instanceof InvalidInput) return invalid({ [error.field]: say(t, error.said) }, intent);
  if (error instanceof z.ZodError) {
    const errors: FieldErrors = {};
    for (const issue of error.issues) errors[String(issue.path[0] ?? "form")] ??= sayIssue(t, issue);
    return invalid(errors, intent);
  }
  if (error instanceof MailSendError) return refused(t, error.said, 502, intent);
  if (error instanceof RateLimitedError)
    return tooManyRequestsForm(
      error.retryAfterSeconds,
      { ok: false as const, intent, errors: {} as FieldErrors },
      t,
    );
  throw error;
}

/** The page's side of actionError, for a loader: NotFound renders the error boundary's 404. */
export function pageError(error: unknown, t: TFunction): never {
  if (error instanceof NotFound) throw pageRefusal(t, error.said, 404);
  throw error;
}
