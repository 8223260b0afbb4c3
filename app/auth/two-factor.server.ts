import { createHash, randomBytes, randomUUID } from "node:crypto";
import { generateTOTP, getTOTPAuthUri, verifyTOTP } from "@epic-web/totp";
import type { ExpressionBuilder } from "kysely";
import QRCode from "qrcode";
import type { Database } from "../../db/schema";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { TOKEN_LIFETIME_MS } from "../config";
import { db, type Executor, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import type { MessageKey } from "../i18n/message";
import { decryptSecret, encryptSecret } from "../security/secret-box.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import { invalidateSessions } from "./session-cache.server";
import { hashToken } from "./tokens.server";

// TOTP two-factor authentication (decision 018).

/** The signed-in caller (a SessionUser; not imported, as session.server.ts reads this module). */
type SessionUser = {
  id: string;
  email: string;
  isSuperAdmin: boolean;
  impersonator?: { id: string; email: string } | null;
};

type SessionCaller = SessionUser & { sessionId: string };

const PERIOD = 30;
const DIGITS = 6;
const ALGORITHM = "SHA-1"; // what every authenticator app understands
const RECOVERY_CODE_COUNT = 10;
/** A half-done enrolment must not stay for a later session thief to confirm. */
const ENROLMENT_WINDOW_MS = TOKEN_LIFETIME_MS["two-factor-enrol"];

const enrolmentExpired = (createdAt: string | Date) =>
  Date.now() - new Date(createdAt).getTime() > ENROLMENT_WINDOW_MS;

type UserRow = ExpressionBuilder<Database, "user">;

/**
 * THE definition of "a second factor is enrolled": a confirmed TOTP secret. A passkey does not
 * count, as the same account may still sign in with its password alone (decision 018).
 */
function secondFactorEnrolled(eb: UserRow) {
  return eb.exists(
    eb
      .selectFrom("user_two_factor")
      .select("user_two_factor.user_id")
      .whereRef("user_two_factor.user_id", "=", "user.id")
      .where("user_two_factor.confirmed_at", "is not", null),
  );
}

function requiredByRole(eb: UserRow) {
  return eb.exists(
    eb
      .selectFrom("user_role as tf_ur")
      .innerJoin("two_factor_required_role", "two_factor_required_role.role_id", "tf_ur.role_id")
      .select("tf_ur.role_id")
      .whereRef("tf_ur.user_id", "=", "user.id"),
  );
}

/** Whatever this reads is written only by code that calls invalidateSessions(). */
export function twoFactorEnrolmentDue(eb: UserRow) {
  return eb.and([requiredByRole(eb), eb.not(secondFactorEnrolled(eb))]).as("two_factor_due");
}

export async function hasTwoFactor(userId: string, executor: Executor = db()): Promise<boolean> {
  const row = await executor
    .selectFrom("user_two_factor")
    .select("user_id")
    .where("user_id", "=", userId)
    .where("confirmed_at", "is not", null)
    .executeTakeFirst();
  return row !== undefined;
}

/** THE check of sign-in's second factor: a passkey counts as two factors. */
export async function secondFactorSatisfied(userId: string, factors: 1 | 2): Promise<boolean> {
  if (factors >= 2) return true;
  return !(await hasTwoFactor(userId));
}

export async function twoFactorRequiredFor(roleIds: string[]): Promise<boolean> {
  if (roleIds.length === 0) return false;
  const row = await db()
    .selectFrom("two_factor_required_role")
    .select("role_id")
    .where("role_id", "in", roleIds)
    .executeTakeFirst();
  return row !== undefined;
}

function currentStep() {
  return Math.floor(Date.now() / 1000 / PERIOD);
}

/** The library reads the clock when called; reading it before and after tells which step it saw. */
async function matchingStep(secret: string, code: string): Promise<number | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const before = currentStep();
    const pending = verifyTOTP({ otp: code, secret, period: PERIOD, digits: DIGITS, algorithm: ALGORITHM });
    const after = currentStep();
    const result = await pending;
    if (before === after) return result ? before + result.delta : null;
  }
  return null;
}

const TOTP_CODE = /^\d{6}$/;

function normaliseCode(raw: string): string {
  return raw.replace(/[\s-]/g, "").toLowerCase();
}

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no 0/o, 1/l/i

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

function hashRecoveryCode(code: string): string {
  return createHash("sha256")
    .update(`two-factor-recovery:${normaliseCode(code)}`)
    .digest("hex");
}

async function replaceRecoveryCodes(userId: string, executor: Executor): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const ts = now();
  await executor.deleteFrom("two_factor_recovery_code").where("user_id", "=", userId).execute();
  await executor
    .insertInto("two_factor_recovery_code")
    .values(
      codes.map((code) => ({
        id: randomUUID(),
        user_id: userId,
        code_hash: hashRecoveryCode(code),
        used_at: null,
        created_at: ts,
      })),
    )
    .execute();
  return codes;
}

/** Codes are spent by a conditional update, so two requests cannot use one code. */
export async function spendSecondFactorCode(
  userId: string,
  raw: string,
): Promise<{ ok: true; kind: "totp" | "recovery"; recoveryCodesLeft?: number } | { ok: false }> {
  const code = normaliseCode(raw);
  const row = await db()
    .selectFrom("user_two_factor")
    .select(["secret", "last_step"])
    .where("user_id", "=", userId)
    .where("confirmed_at", "is not", null)
    .executeTakeFirst();
  if (!row) return { ok: false };
  if (TOTP_CODE.test(code)) {
    const step = await matchingStep(decryptSecret(row.secret), code);
    if (step === null) return { ok: false };
    const spent = await db()
      .updateTable("user_two_factor")
      .set({ last_step: step })
      .where("user_id", "=", userId)
      .where((eb) => eb.or([eb("last_step", "is", null), eb("last_step", "<", step)]))
      .executeTakeFirst();
    return Number(spent.numUpdatedRows) === 1 ? { ok: true, kind: "totp" } : { ok: false };
  }
  if (!/^[a-z0-9]{10}$/.test(code)) return { ok: false };
  const spent = await db()
    .updateTable("two_factor_recovery_code")
    .set({ used_at: now() })
    .where("user_id", "=", userId)
    .where("code_hash", "=", hashRecoveryCode(code))
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1) return { ok: false };
  return { ok: true, kind: "recovery", recoveryCodesLeft: await recoveryCodesLeft(userId) };
}

async function recoveryCodesLeft(userId: string): Promise<number> {
  const row = await db()
    .selectFrom("two_factor_recovery_code")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type TwoFactorView =
  | { state: "off" }
  | { state: "pending"; secret: string; qrCode: string }
  /** An enrolment waits for its first code in another of the account's sessions. */
  | { state: "elsewhere" }
  | { state: "on"; recoveryCodesLeft: number };

// A pending enrolment belongs to the session that started it, not the account, so a stolen cookie
// of another session cannot see or confirm the secret (decision 018).

const ENROL = "two-factor-enrol" as const;

/** A hash, never the session id the cookie carries. */
const enrolmentBinding = (sessionId: string) => hashToken(`two-factor-enrol:${sessionId}`);

const NOT_WHILE_VIEWING: MessageKey = "auth.impersonating";
const ELSEWHERE: MessageKey = "twoFactor.startedElsewhere";

async function openEnrolment(
  user: SessionCaller,
  executor: Executor = db(),
): Promise<{ secret: string; mine: boolean } | null> {
  const row = await executor
    .selectFrom("user_two_factor")
    .select(["secret", "confirmed_at", "created_at"])
    .where("user_id", "=", user.id)
    .executeTakeFirst();
  if (!row || row.confirmed_at || enrolmentExpired(row.created_at)) return null;
  const binding = await executor
    .selectFrom("user_token")
    .select("token_hash")
    .where("user_id", "=", user.id)
    .where("kind", "=", ENROL)
    .where("used_at", "is", null)
    .where("expires_at", ">", now())
    .executeTakeFirst();
  if (!binding) return null; // an enrolment started before sessions owned them: nobody's
  if (binding.token_hash === enrolmentBinding(user.sessionId)) return { secret: row.secret, mine: true };
  const sessions = await executor
    .selectFrom("session")
    .select("id")
    .where("user_id", "=", user.id)
    .where("expires_at", ">", now())
    .execute();
  const live = sessions.some((s) => enrolmentBinding(s.id) === binding.token_hash);
  return live ? { secret: row.secret, mine: false } : null;
}

/** The secret is shown only before confirmation, and only to the session that started it. */
export async function twoFactorView(user: SessionCaller): Promise<TwoFactorView> {
  if (await hasTwoFactor(user.id))
    return { state: "on", recoveryCodesLeft: await recoveryCodesLeft(user.id) };
  // A super admin viewing as this person must not walk away with the seed of their future codes.
  if (user.impersonator) return { state: "off" };
  const open = await openEnrolment(user);
  if (!open) return { state: "off" };
  if (!open.mine) return { state: "elsewhere" };
  const secret = decryptSecret(open.secret);
  const uri = getTOTPAuthUri({
    period: PERIOD,
    digits: DIGITS,
    algorithm: ALGORITHM,
    secret,
    accountName: user.email,
    issuer: await getSystemConfig("APP_NAME"),
  });
  return { state: "pending", secret, qrCode: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) };
}

/** Any enrolment another session had started is replaced. */
export async function startTwoFactor(user: SessionCaller, _input: unknown, origin: AuditOrigin) {
  if (user.impersonator) throw new RuleViolation(NOT_WHILE_VIEWING);
  if (await hasTwoFactor(user.id)) throw new RuleViolation("twoFactor.alreadyOnSetup");
  const { secret } = await generateTOTP({ period: PERIOD, digits: DIGITS, algorithm: ALGORITHM });
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom("user_token").where("user_id", "=", user.id).where("kind", "=", ENROL).execute();
      await trx.deleteFrom("user_two_factor").where("user_id", "=", user.id).execute();
      const created = Date.now();
      await trx
        .insertInto("user_two_factor")
        .values({
          user_id: user.id,
          secret: encryptSecret(secret),
          confirmed_at: null,
          last_step: null,
          created_at: new Date(created).toISOString(),
        })
        .execute();
      await trx
        .insertInto("user_token")
        .values({
          id: randomUUID(),
          user_id: user.id,
          kind: ENROL,
          token_hash: enrolmentBinding(user.sessionId),
          data: null,
          expires_at: new Date(created + ENROLMENT_WINDOW_MS).toISOString(),
          used_at: null,
          created_at: new Date(created).toISOString(),
        })
        .execute();
      await audit(
        origin,
        { action: "account.two_factor.enrol_started", actor: user, target: { type: "user", id: user.id } },
        trx,
      );
    });
}

/** Only the session that started the enrolment may confirm it. */
export async function confirmTwoFactor(
  user: SessionCaller,
  input: { code: string },
  origin: AuditOrigin,
): Promise<string[]> {
  if (user.impersonator) throw new RuleViolation(NOT_WHILE_VIEWING);
  const open = await openEnrolment(user);
  if (!open) throw new RuleViolation("twoFactor.notStarted");
  if (!open.mine) {
    await audit(origin, {
      action: "account.two_factor.confirm_refused",
      actor: user,
      target: { type: "user", id: user.id },
      details: { reason: "started in another session" },
    });
    throw new RuleViolation(ELSEWHERE);
  }
  const step = await matchingStep(decryptSecret(open.secret), normaliseCode(input.code));
  if (step === null) {
    await audit(origin, {
      action: "account.two_factor.confirm_failed",
      actor: user,
      target: { type: "user", id: user.id },
    });
    throw new InvalidInput("twoFactor.wrongSetupCode", "code");
  }
  const codes = await db()
    .transaction()
    .execute(async (trx) => {
      // The session's claim is spent first: a restart elsewhere in the meantime took it away.
      const claimed = await trx
        .deleteFrom("user_token")
        .where("user_id", "=", user.id)
        .where("kind", "=", ENROL)
        .where("token_hash", "=", enrolmentBinding(user.sessionId))
        .where("used_at", "is", null)
        .executeTakeFirst();
      if (Number(claimed.numDeletedRows) !== 1) throw new RuleViolation("twoFactor.notStarted");
      const done = await trx
        .updateTable("user_two_factor")
        .set({ confirmed_at: now(), last_step: step })
        .where("user_id", "=", user.id)
        .where("secret", "=", open.secret) // the secret the code was checked against
        .where("confirmed_at", "is", null)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) throw new RuleViolation("twoFactor.alreadyOn");
      const codes = await replaceRecoveryCodes(user.id, trx);
      await audit(
        origin,
        { action: "account.two_factor.enable", actor: user, target: { type: "user", id: user.id } },
        trx,
      );
      return codes;
    });
  await invalidateSessions();
  return codes;
}

/** Sign-out ends only this session's enrolment, never one another session started. */
export async function abandonEnrolment(userId: string, sessionId: string) {
  await db()
    .transaction()
    .execute(async (trx) => {
      const owned = await trx
        .deleteFrom("user_token")
        .where("user_id", "=", userId)
        .where("kind", "=", ENROL)
        .where("token_hash", "=", enrolmentBinding(sessionId))
        .executeTakeFirst();
      if (Number(owned.numDeletedRows) > 0)
        await trx
          .deleteFrom("user_two_factor")
          .where("user_id", "=", userId)
          .where("confirmed_at", "is", null)
          .execute();
    });
}

export async function disableTwoFactor(user: SessionUser, _input: unknown, origin: AuditOrigin) {
  if (!(await hasTwoFactor(user.id))) throw new NotFound("twoFactor.notOn");
  await db()
    .transaction()
    .execute(async (trx) => {
      await removeTwoFactor(user.id, trx);
      await audit(
        origin,
        { action: "account.two_factor.disable", actor: user, target: { type: "user", id: user.id } },
        trx,
      );
    });
  await invalidateSessions();
}

export async function regenerateRecoveryCodes(
  user: SessionUser,
  _input: unknown,
  origin: AuditOrigin,
): Promise<string[]> {
  if (!(await hasTwoFactor(user.id))) throw new NotFound("twoFactor.notOn");
  return db()
    .transaction()
    .execute(async (trx) => {
      const codes = await replaceRecoveryCodes(user.id, trx);
      await audit(
        origin,
        {
          action: "account.two_factor.recovery_codes",
          actor: user,
          target: { type: "user", id: user.id },
        },
        trx,
      );
      return codes;
    });
}

async function removeTwoFactor(userId: string, trx: Executor) {
  await trx.deleteFrom("two_factor_recovery_code").where("user_id", "=", userId).execute();
  await trx.deleteFrom("user_two_factor").where("user_id", "=", userId).execute();
}

/** Never one's own: that goes through Settings with the password. */
export async function resetTwoFactor(
  actor: SessionUser,
  input: { id: string },
  origin: AuditOrigin,
): Promise<{ email: string; name: string }> {
  if (!actor.isSuperAdmin) throw new RuleViolation("twoFactor.resetSuperAdminOnly");
  if (input.id === actor.id) throw new RuleViolation("twoFactor.resetOwn");
  const target = await db()
    .selectFrom("user")
    .select(["id", "email", "name"])
    .where("id", "=", input.id)
    .executeTakeFirst();
  if (!target) throw new NotFound("users.notFound");
  const existing = await db()
    .selectFrom("user_two_factor")
    .select("user_id")
    .where("user_id", "=", input.id)
    .executeTakeFirst();
  if (!existing) throw new NotFound("twoFactor.nothingToReset");
  await db()
    .transaction()
    .execute(async (trx) => {
      await removeTwoFactor(target.id, trx);
      await audit(
        origin,
        {
          action: "user.two_factor.reset",
          actor,
          target: { type: "user", id: target.id },
          details: { email: target.email },
        },
        trx,
      );
    });
  await invalidateSessions();
  return { email: target.email, name: target.name };
}

export async function requiredRoleIds(): Promise<string[]> {
  const rows = await db().selectFrom("two_factor_required_role").select("role_id").execute();
  return rows.map((r) => r.role_id).sort();
}

export async function setRequiredRoles(
  actor: SessionUser,
  input: { roleIds: string[] },
  origin: AuditOrigin,
): Promise<boolean> {
  if (!actor.isSuperAdmin) throw new RuleViolation("twoFactor.requireSuperAdminOnly");
  const wanted = [...new Set(input.roleIds)].sort();
  if (wanted.length) {
    const known = await db().selectFrom("role").select("id").where("id", "in", wanted).execute();
    if (known.length !== wanted.length) throw new InvalidInput("validation.rolesFromList", "roles");
  }
  const before = await requiredRoleIds();
  if (before.join() === wanted.join()) return false;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom("two_factor_required_role").execute();
      if (wanted.length)
        await trx
          .insertInto("two_factor_required_role")
          .values(wanted.map((role_id) => ({ role_id, created_at: now() })))
          .execute();
      await audit(
        origin,
        { action: "settings.two_factor_roles", actor, details: { before, after: wanted } },
        trx,
      );
    });
  await invalidateSessions();
  return true;
}
