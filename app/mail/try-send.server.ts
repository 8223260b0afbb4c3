import { type AuditOrigin, audit } from "../audit/audit.server";
import { MailSendError } from "../domain-errors";
import type { Delivery } from "./transport.server";

/**
 * How an email fared, as an admin who asked for it must hear it: sent to the provider, kept by the
 * development outbox because no provider is set up (nobody receives it), or refused by the provider.
 */
export type MailOutcome =
  | { sent: true }
  | { sent: false; why: "no_provider" }
  | { sent: false; why: "refused"; problem: string };

/**
 * Sends and reports the outcome instead of throwing: a failure (the provider's refusal, or it could
 * not be reached) is logged and audited (mail.failed) and reported as refused.
 */
export async function sendReporting(
  origin: AuditOrigin,
  what: { type: string; to: string },
  send: () => Promise<Delivery>,
): Promise<MailOutcome> {
  try {
    const delivery = await send();
    return delivery.via === "outbox" ? { sent: false, why: "no_provider" } : { sent: true };
  } catch (error) {
    const message = (error as Error).message;
    console.error(`[mail] ${what.type} to ${what.to} failed: ${message}`);
    await audit(origin, {
      action: "mail.failed",
      target: { type: "email", id: what.to },
      details: { type: what.type, message },
    });
    // The provider's own words, for a sentence that already says which email failed.
    const problem = error instanceof MailSendError ? error.providerMessage : message;
    return { sent: false, why: "refused", problem };
  }
}

/**
 * For flows whose answer must not depend on the mail provider (register, forgot password):
 * a failed send is audited and reported as false instead of failing the request. The development
 * outbox counts as sent here: those flows never say whether an address got mail.
 */
export async function trySend(
  origin: AuditOrigin,
  what: { type: string; to: string },
  send: () => Promise<Delivery>,
) {
  const outcome = await sendReporting(origin, what, send);
  return outcome.sent || outcome.why === "no_provider";
}
