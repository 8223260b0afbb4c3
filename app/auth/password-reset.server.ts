import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { sendPasswordResetEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { resetPasswordUrl } from "./links.server";
import { hashPassword } from "./password.server";
import { endAllSessions } from "./session.server";
import { consumeToken, issueToken, spendTokens, type TokenProblem } from "./tokens.server";

/** Mails a one-hour reset link when the account exists and is active; the caller answers the same either way. */
export async function requestPasswordReset(origin: AuditOrigin, email: string) {
  const user = await db()
    .selectFrom("user")
    .select(["id", "name", "email", "status"])
    .where("email", "=", email)
    .executeTakeFirst();
  const eligible = !!user && user.status === "active";
  await audit(origin, {
    action: "auth.password.reset_requested",
    target: user ? { type: "user", id: user.id } : null,
    details: { email, sent: eligible },
  });
  if (!eligible) return;
  const token = await issueToken({ kind: "reset-password", userId: user.id });
  await trySend(origin, { type: "reset-password", to: user.email }, () =>
    sendPasswordResetEmail({ to: user.email, name: user.name, resetUrl: resetPasswordUrl(token) }),
  );
}

export type ResetOutcome = { ok: true; email: string } | { ok: false; reason: TokenProblem };

/**
 * Sets the new password, spends every open reset link and ends every session of the user.
 * Following an emailed link proves the address, so an unverified account becomes verified.
 */
export async function resetPassword(
  origin: AuditOrigin,
  raw: string,
  password: string,
): Promise<ResetOutcome> {
  const passwordHash = await hashPassword(password);
  const outcome = await db()
    .transaction()
    .execute(async (tx): Promise<ResetOutcome & { userId?: string }> => {
      const check = await consumeToken(["reset-password"], raw, tx);
      if (!check.ok) return check;
      const user = await tx
        .selectFrom("user")
        .select(["id", "email"])
        .where("id", "=", check.token.userId!)
        .where("status", "=", "active")
        .executeTakeFirst();
      if (!user) return { ok: false, reason: "invalid" };
      await tx
        .updateTable("user")
        .set({ password_hash: passwordHash, must_change_password: 0, email_verified: 1, updated_at: now() })
        .where("id", "=", user.id)
        .execute();
      await spendTokens(user.id, "reset-password", tx);
      await audit(
        origin,
        { action: "auth.password.reset", actor: user, target: { type: "user", id: user.id } },
        tx,
      );
      return { ok: true, email: user.email, userId: user.id };
    });
  if (outcome.ok && outcome.userId) await endAllSessions(outcome.userId);
  return outcome.ok ? { ok: true, email: outcome.email } : outcome;
}
