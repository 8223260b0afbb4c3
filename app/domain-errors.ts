import { english } from "./i18n/english.server";
import type { Message, MessageKey, MessageValues } from "./i18n/message";

// Outside every domain, because actionError maps them to answers (docs/http-contract.md). Each carries
// a message key; the Error's own message is the English, for the API and the logs.

abstract class DomainError extends Error {
  readonly said: Message;

  constructor(key: MessageKey, values?: MessageValues) {
    const said: Message = values ? { key, values } : { key };
    super(english(said));
    this.said = said;
  }
}

/** The message is safe to show. */
export class RuleViolation extends DomainError {}

/** Shown on `field` (a wrong current password, say). */
export class InvalidInput extends DomainError {
  constructor(
    key: MessageKey,
    readonly field = "form",
    values?: MessageValues,
  ) {
    super(key, values);
  }
}

/** The message is safe to show. */
export class NotFound extends DomainError {}

/** The change is already there, or another got there first (409). */
export class Conflict extends DomainError {}

export class MailSendError extends DomainError {
  constructor(
    key: Extract<MessageKey, `mail.sendFailed.${string}`>,
    readonly providerMessage: string,
  ) {
    super(key, { problem: providerMessage });
    this.name = "MailSendError";
  }
}
