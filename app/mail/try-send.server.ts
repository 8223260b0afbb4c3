import { type AuditOrigin, audit } from "../audit/audit.server";

/**
 * For flows whose answer must not depend on the mail provider (register, forgot password):
 * a failed send is audited and reported as false instead of failing the request.
 */
export async function trySend(
  origin: AuditOrigin,
  what: { type: string; to: string },
  send: () => Promise<unknown>,
) {
  try {
    await send();
    return true;
  } catch (error) {
    console.error(`[mail] ${what.type} to ${what.to} failed: ${(error as Error).message}`);
    await audit(origin, {
      action: "mail.failed",
      target: { type: "email", id: what.to },
      details: { type: what.type, message: (error as Error).message },
    });
    return false;
  }
}
