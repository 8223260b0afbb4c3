import { z } from "zod";
import type { AuditOrigin } from "../audit/audit.server";
import { type DeliveryPurpose, type DeliveryState, findDelivery } from "../mail/deliveries.server";
import { startPasswordReset } from "./password-reset.server";
import type { PublicForm } from "./public-form-limit.server";
import { retryRegistrationMail, startVerificationResend } from "./registration.server";

// "Check your inbox" for the public account forms: which text, and how that request's email fared.

const PURPOSES = ["register", "reset", "resend"] as const satisfies readonly DeliveryPurpose[];
// `for` comes from the address bar: missing means the registration text; anything else unknown
// (also "__proto__") is a bad address, answered 400 by the page.
const purposeSchema = z.enum(PURPOSES).default("register");

export const FORM_OF: Record<DeliveryPurpose, PublicForm> = {
  register: "register",
  reset: "forgot-password",
  resend: "resend-verification",
};

export function checkInboxUrl(purpose: DeliveryPurpose, deliveryId: string) {
  return `/check-inbox?for=${purpose}&d=${encodeURIComponent(deliveryId)}`;
}

export type InboxView = { which: DeliveryPurpose; delivery: { state: DeliveryState } | null };

/** What "check your inbox" shows, or null when its address names no known form. */
export async function inboxView(url: URL): Promise<InboxView | null> {
  const parsed = purposeSchema.safeParse(url.searchParams.get("for") ?? undefined);
  if (!parsed.success) return null;
  const which = parsed.data;
  const delivery = await findDelivery(url.searchParams.get("d"));
  return { which, delivery: delivery ? { state: delivery.state } : null };
}

/** The delivery a "try again" names, when it exists and failed; nothing else may be retried. */
export async function failedDelivery(id: unknown) {
  const delivery = await findDelivery(id);
  return delivery?.state === "failed" ? delivery : null;
}

/** Sends a failed delivery's email again as a new delivery; returns where its state is shown. */
export async function retryDelivery(
  origin: AuditOrigin,
  delivery: { purpose: DeliveryPurpose; email: string },
): Promise<string> {
  const start = {
    register: retryRegistrationMail,
    reset: startPasswordReset,
    resend: startVerificationResend,
  }[delivery.purpose];
  return checkInboxUrl(delivery.purpose, await start(origin, delivery.email));
}
