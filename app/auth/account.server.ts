import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { InvalidInput, RuleViolation } from "../domain-errors";
import type { MessageKey } from "../i18n/message";
import { mailLanguage } from "../mail/mail-language.server";
import { sendVerificationEmail } from "../mail/senders.server";
import { reserveReauth } from "../security/login-limits.server";
import { RateLimitedError } from "../security/rate-limit.server";
import { checkNewPassword } from "./breached-passwords.server";
import { verifyEmailUrl } from "./links.server";
import { hashPassword, verifyPassword } from "./password.server";
import { invalidateSessions, type SessionUser, sessionHandle } from "./session.server";
import { endSessions } from "./session-end.server";
import { issueToken } from "./tokens.server";
import { spendSecondFactorCode } from "./two-factor.server";

/** A stolen session must not become a password oracle: the check spends a point of the login budget. */
async function assertCurrentPassword(
  origin: AuditOrigin,
  user: SessionUser,
  password: string,
  purpose: string,
) {
  const target = { type: "user", id: user.id };
  const reservation = await reserveReauth(user.id);
  if (!reservation.ok) {
    await audit(origin, { action: "account.reauth.rate_limited", actor: user, target, details: { purpose } });
    throw new RateLimitedError(reservation.retryAfterSeconds);
  }
  const row = await db()
    .selectFrom("user")
    .select("password_hash")
    .where("id", "=", user.id)
    .executeTakeFirst();
  if (!row?.password_hash || !(await verifyPassword(row.password_hash, password))) {
    await audit(origin, { action: "account.reauth.failed", actor: user, target, details: { purpose } });
    throw new InvalidInput("auth.currentPasswordWrong", "currentPassword");
  }
  await reservation.passwordWasRight();
}

const FRESH_SIGN_IN_MS = 10 * 60 * 1000;
const SIGN_IN_AGAIN: MessageKey = "auth.reauthSignInAgain";
const WRONG_REAUTH_CODE: MessageKey = "twoFactor.wrongReauthCode";

/** Settings shows a field for each (docs/rules.md). */
export type ReauthMethods = { password: boolean; code: boolean };

export async function reauthMethods(userId: string): Promise<ReauthMethods> {
  const row = await db()
    .selectFrom("user")
    .leftJoin("user_two_factor", (join) =>
      join
        .onRef("user_two_factor.user_id", "=", "user.id")
        .on("user_two_factor.confirmed_at", "is not", null),
    )
    .select(["user.password_hash", "user_two_factor.user_id as twoFactor"])
    .where("user.id", "=", userId)
    .executeTakeFirst();
  return { password: Boolean(row?.password_hash), code: Boolean(row?.twoFactor) };
}

export type ReauthProof = { password?: string | undefined; code?: string | undefined };

/**
 * THE re-authentication of every account-security step and super admin setting (docs/rules.md,
 * "Re-authentication"); wrong passwords and wrong codes spend the same budget.
 */
export async function assertReauthenticated(
  origin: AuditOrigin,
  user: SessionUser,
  proof: ReauthProof,
  purpose: string,
) {
  const methods = await reauthMethods(user.id);
  const password = proof.password || undefined;
  const code = proof.code?.trim() || undefined;
  if (methods.password && password) return assertCurrentPassword(origin, user, password, purpose);
  if (methods.code && code) return assertSecondFactorCode(origin, user, code, purpose);
  if (methods.password && methods.code) throw new InvalidInput("auth.reauthEnter", "currentPassword");
  if (methods.password) throw new InvalidInput("auth.enterCurrentPassword", "currentPassword");
  if (methods.code) throw new InvalidInput("auth.reauthEnterCode", "reauthCode");
  const row = await db()
    .selectFrom("session")
    .select("created_at")
    .where("id", "=", user.sessionId)
    .executeTakeFirst();
  const signedInAt = row?.created_at ? new Date(row.created_at).getTime() : 0;
  if (Date.now() - signedInAt > FRESH_SIGN_IN_MS) {
    await audit(origin, {
      action: "account.reauth.failed",
      actor: user,
      target: { type: "user", id: user.id },
      details: { purpose, reason: "stale_sign_in" },
    });
    throw new RuleViolation(SIGN_IN_AGAIN);
  }
}

async function assertSecondFactorCode(origin: AuditOrigin, user: SessionUser, code: string, purpose: string) {
  const target = { type: "user", id: user.id };
  const reservation = await reserveReauth(user.id);
  if (!reservation.ok) {
    await audit(origin, { action: "account.reauth.rate_limited", actor: user, target, details: { purpose } });
    throw new RateLimitedError(reservation.retryAfterSeconds);
  }
  const used = await spendSecondFactorCode(user.id, code);
  if (!used.ok) {
    await audit(origin, {
      action: "account.reauth.failed",
      actor: user,
      target,
      details: { purpose, method: "code" },
    });
    throw new InvalidInput(WRONG_REAUTH_CODE, "reauthCode");
  }
  await reservation.passwordWasRight();
}

export async function updateProfile(user: SessionUser, input: { name: string }, origin: AuditOrigin) {
  if (input.name === user.name) return false;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("user")
        .set({ name: input.name, updated_at: now() })
        .where("id", "=", user.id)
        .execute();
      await audit(
        origin,
        {
          action: "account.profile.update",
          actor: user,
          target: { type: "user", id: user.id },
          details: { name: { before: user.name, after: input.name } },
        },
        trx,
      );
    });
  await invalidateSessions();
  return true;
}

/** The session cache holds the language, so it is dropped like a name change. */
export async function updateLanguage(
  user: SessionUser,
  input: { locale: string | null },
  origin: AuditOrigin,
) {
  const before = user.locale ?? null;
  if (input.locale === before) return false;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("user")
        .set({ locale: input.locale, updated_at: now() })
        .where("id", "=", user.id)
        .execute();
      await audit(
        origin,
        {
          action: "account.language.update",
          actor: user,
          target: { type: "user", id: user.id },
          details: { locale: { before, after: input.locale } },
        },
        trx,
      );
    });
  await invalidateSessions();
  return true;
}

/** The address changes only when the link mailed to it is followed, so nobody moves an account to an address they do not control. */
export async function requestEmailChange(
  user: SessionUser,
  input: { email: string; currentPassword: string },
  origin: AuditOrigin,
) {
  await assertCurrentPassword(origin, user, input.currentPassword, "email");
  if (input.email === user.email) throw new InvalidInput("auth.sameAddress", "email");
  const taken = await db()
    .selectFrom("user")
    .select("id")
    .where("email", "=", input.email)
    .executeTakeFirst();
  if (taken) throw new InvalidInput("auth.addressTaken", "email");
  const token = await db()
    .transaction()
    .execute(async (trx) => {
      const token = await issueToken(
        { kind: "email-change", userId: user.id, data: { email: input.email } },
        trx,
      );
      await audit(
        origin,
        {
          action: "account.email.change_requested",
          actor: user,
          target: { type: "user", id: user.id },
          details: { before: user.email, after: input.email },
        },
        trx,
      );
      return token;
    });
  await sendVerificationEmail({
    to: input.email,
    name: user.name,
    verificationUrl: verifyEmailUrl(token),
    language: await mailLanguage(origin, user.locale),
  });
}

export async function changePassword(
  user: SessionUser,
  input: { currentPassword: string; newPassword: string },
  origin: AuditOrigin,
) {
  await assertCurrentPassword(origin, user, input.currentPassword, "password");
  const { warn } = await checkNewPassword(input.newPassword, "newPassword");
  const passwordHash = await hashPassword(input.newPassword);
  await endSessions({ userId: user.id, except: user.sessionId }, async (trx) => {
    await trx
      .updateTable("user")
      .set({ password_hash: passwordHash, must_change_password: 0, updated_at: now() })
      .where("id", "=", user.id)
      .execute();
    await audit(
      origin,
      { action: "account.password.change", actor: user, target: { type: "user", id: user.id } },
      trx,
    );
  });
  return { warn };
}

export type SessionView = {
  id: string;
  current: boolean;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
};

export async function listMySessions(user: SessionUser): Promise<SessionView[]> {
  const rows = await db()
    .selectFrom("session")
    .select(["id", "ip", "user_agent", "created_at", "last_seen_at"])
    .where("user_id", "=", user.id)
    .where("expires_at", ">", now())
    .orderBy("last_seen_at", "desc")
    .execute();
  return rows.map((r) => ({
    id: sessionHandle(r.id),
    current: r.id === user.sessionId,
    ip: r.ip,
    userAgent: r.user_agent,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
  }));
}

export async function revokeMySessions(
  user: SessionUser,
  which: { handle: string } | "others",
  origin: AuditOrigin,
) {
  const mine = await db().selectFrom("session").select("id").where("user_id", "=", user.id).execute();
  const ids = mine
    .map((s) => s.id)
    .filter((id) => id !== user.sessionId && (which === "others" || sessionHandle(id) === which.handle));
  const count = ids.length;
  if (count === 0) return 0;
  await endSessions({ userId: user.id, ids }, async (trx) => {
    await audit(
      origin,
      {
        action: "account.sessions.revoke",
        actor: user,
        target: { type: "user", id: user.id },
        details: { scope: which === "others" ? "others" : "one", count },
      },
      trx,
    );
  });
  return count;
}
