import { type AuditOrigin, audit } from "../audit/audit.server";
import { MailSendError } from "../domain-errors";
import type { Delivery } from "./transport.server";

export type MailOutcome =
  | { sent: true }
  | { sent: false; why: "no_provider" }
  | { sent: false; why: "refused"; problem: string };

/** A failure is logged, audited (mail.failed) and reported as refused, never thrown. */
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
    const problem = error instanceof MailSendError ? error.providerMessage : message;
    return { sent: false, why: "refused", problem };
  }
}

/** For flows whose answer must not depend on the provider; the outbox counts as sent, as they never say whether an address got mail. */
export async function trySend(
  origin: AuditOrigin,
  what: { type: string; to: string },
  send: () => Promise<Delivery>,
) {
  const outcome = await sendReporting(origin, what, send);
  return outcome.sent || outcome.why === "no_provider";
}
