import { english } from "./i18n/english.server";
import type { Message, MessageKey, MessageValues } from "./i18n/message";

// The failures a domain change signals, each in one way. They live outside every domain because
// app/http/form.server.ts (actionError) maps them to answers: RuleViolation 403, NotFound 404,
// InvalidInput 400, MailSendError 502 (docs/http-contract.md).
//
// Each carries a message key and its values (app/i18n/message.ts): the page's answer says it in the
// request's language; the Error's own message is the English, for the API and the logs.

abstract class DomainError extends Error {
  readonly said: Message;

  constructor(key: MessageKey, values?: MessageValues) {
    const said: Message = values ? { key, values } : { key };
    super(english(said));
    this.said = said;
  }
}

/** A rule of the product refused the change; the message is safe to show. */
export class RuleViolation extends DomainError {}

/** The input breaks no rule but cannot be used as sent (a wrong current password, say); shown on `field`. */
export class InvalidInput extends DomainError {
  constructor(
    key: MessageKey,
    readonly field = "form",
    values?: MessageValues,
  ) {
    super(key, values);
  }
}

/** The record an action names is gone (or never existed); the message is safe to show. */
export class NotFound extends DomainError {}

/** What a sender throws when the provider refuses, ready to show an admin: which email, and the provider's words. */
export class MailSendError extends DomainError {
  constructor(
    key: Extract<MessageKey, `mail.sendFailed.${string}`>,
    readonly providerMessage: string,
  ) {
    super(key, { problem: providerMessage });
    this.name = "MailSendError";
  }
}
