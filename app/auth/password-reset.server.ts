import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { type MailJob, NO_MAIL, startDelivery, timedSend } from "../mail/deliveries.server";
import { mailLanguage } from "../mail/mail-language.server";
import { sendInviteEmail, sendPasswordChangedEmail, sendPasswordResetEmail } from "../mail/senders.server";
import { type MailOutcome, sendReporting, trySend } from "../mail/try-send.server";
import { afterTakeOver, isUnproven, takeOverUnproven } from "./account-takeover.server";
import { revokeAllApiTokens } from "./api-tokens.server";
import { resetPasswordUrl, settingsUrl } from "./links.server";
import { listPasskeys } from "./passkeys.server";
import { hashPassword } from "./password.server";
import { endAllSessions } from "./session.server";
import { passwordBlockedBy } from "./sso-providers.server";
import { consumeToken, issueToken, spendTokens, type TokenProblem } from "./tokens.server";

/** Same work either way; `report` hears how the email fared (the public form never says). */
async function passwordResetMail(
  origin: AuditOrigin,
  email: string,
  report?: (outcome: MailOutcome) => void,
): Promise<MailJob> {
  const user = await db()
    .selectFrom("user")
    .select(["id", "name", "email", "status", "locale"])
    .where("email", "=", email)
    .executeTakeFirst();
  // Asked either way: same work.
  const ssoOnly = (await passwordBlockedBy(email)) !== null;
  const eligible = !!user && user.status === "active" && !ssoOnly;
  await audit(origin, {
    action: "auth.password.reset_requested",
    target: user ? { type: "user", id: user.id } : null,
    details: { email, sent: eligible, ...(ssoOnly ? { ssoOnly } : {}) },
  });
  if (!eligible) return NO_MAIL;
  return timedSend(async () => {
    const token = await issueToken({ kind: "reset-password", userId: user.id });
    const language = await mailLanguage(origin, user.locale);
    const outcome = await sendReporting(origin, { type: "reset-password", to: user.email }, () =>
      sendPasswordResetEmail({
        to: user.email,
        name: user.name,
        resetUrl: resetPasswordUrl(token),
        language,
      }),
    );
    report?.(outcome);
    return outcome.sent || outcome.why === "no_provider";
  });
}

/** Answers before the mail leaves. */
export async function startPasswordReset(origin: AuditOrigin, email: string): Promise<string> {
  return startDelivery("reset", email, await passwordResetMail(origin, email));
}

/** The link itself never reaches the admin: it would let them take the account over. */
export async function requestPasswordReset(origin: AuditOrigin, email: string): Promise<MailOutcome | null> {
  let outcome: MailOutcome | null = null;
  await (
    await passwordResetMail(origin, email, (o) => {
      outcome = o;
    })
  )();
  return outcome;
}

/** A failure is logged and audited (mail.failed), never thrown. */
export async function sendPasswordSetup(
  origin: AuditOrigin,
  user: { id: string; email: string; locale?: string | null },
  inviterName: string,
): Promise<boolean> {
  const token = await issueToken({ kind: "set-password", userId: user.id });
  const language = await mailLanguage(origin, user.locale ?? null);
  return trySend(origin, { type: "invite", to: user.email }, () =>
    sendInviteEmail({ to: user.email, inviterName, acceptUrl: resetPasswordUrl(token), language }),
  );
}

export type ResetOutcome = { ok: true; email: string } | { ok: false; reason: TokenProblem };

/**
 * Following an emailed link proves the address, so an unverified account keeps nothing whoever set
 * its credentials before had set (account-takeover.server.ts); API tokens are revoked, passkeys stay
 * and are listed in the confirmation mail so the owner can spot one they never added.
 */
export async function resetPassword(
  origin: AuditOrigin,
  raw: string,
  password: string,
): Promise<ResetOutcome> {
  const passwordHash = await hashPassword(password);
  let takenOver: string[] = [];
  const outcome = await db()
    .transaction()
    .execute(
      async (tx): Promise<ResetOutcome & { user?: { id: string; name: string; locale: string | null } }> => {
        const check = await consumeToken(["reset-password", "set-password"], raw, tx);
        if (!check.ok) return check;
        const user = await tx
          .selectFrom("user")
          .select(["id", "email", "name", "locale", "email_verified", "pending_registration"])
          .where("id", "=", check.token.userId!)
          .where("status", "=", "active")
          .executeTakeFirst();
        if (!user) return { ok: false, reason: "invalid" };
        if (isUnproven(user))
          takenOver = await takeOverUnproven(tx, origin, user.id, {
            kind: "password_reset",
            actor: { id: user.id, email: user.email },
          });
        await tx
          .updateTable("user")
          .set({
            password_hash: passwordHash,
            must_change_password: 0,
            email_verified: 1,
            pending_registration: 0,
            updated_at: now(),
          })
          .where("id", "=", user.id)
          .execute();
        await spendTokens(user.id, "reset-password", tx);
        await spendTokens(user.id, "set-password", tx);
        await spendTokens(user.id, "verify-email", tx);
        await spendTokens(user.id, "two-factor-pending", tx);
        const revokedApiTokens = await revokeAllApiTokens(user.id, tx);
        await audit(
          origin,
          {
            action: "auth.password.reset",
            actor: user,
            target: { type: "user", id: user.id },
            details: { revokedApiTokens },
          },
          tx,
        );
        return { ok: true, email: user.email, user: { id: user.id, name: user.name, locale: user.locale } };
      },
    );
  if (!outcome.ok || !outcome.user) return outcome.ok ? { ok: true, email: outcome.email } : outcome;
  await afterTakeOver(outcome.user.id, takenOver);
  await endAllSessions(outcome.user.id);
  const { user } = outcome;
  const passkeys = await listPasskeys(user.id);
  const language = await mailLanguage(origin, user.locale);
  await trySend(origin, { type: "password-changed", to: outcome.email }, () =>
    sendPasswordChangedEmail({
      to: outcome.email,
      name: user.name,
      settingsUrl: settingsUrl("security"),
      passkeys,
      language,
    }),
  );
  return { ok: true, email: outcome.email };
}
