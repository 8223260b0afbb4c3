import type { EmailType } from "../emails/email-texts";

// The failures a domain change signals, each in one way. They live outside every domain because
// app/http/form.server.ts (actionError) maps them to answers: RuleViolation 403, NotFound 404,
// InvalidInput 400, MailSendError 502 (docs/http-contract.md).

/** A rule of the product refused the change; the message is safe to show. */
export class RuleViolation extends Error {}

/** The input breaks no rule but cannot be used as sent (a wrong current password, say); shown on `field`. */
export class InvalidInput extends Error {
  constructor(
    message: string,
    readonly field = "form",
  ) {
    super(message);
  }
}

/** The record an action names is gone (or never existed); the message is safe to show. */
export class NotFound extends Error {}

/** The error every mail sender throws when the provider refuses; the message is ready to show an admin. */
export class MailSendError extends Error {
  constructor(
    what: string,
    readonly providerMessage: string,
    readonly type: EmailType,
  ) {
    super(`Failed to send ${what}: ${providerMessage}`);
    this.name = "MailSendError";
  }
}
