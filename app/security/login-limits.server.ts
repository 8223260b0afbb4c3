import { db } from "../db.server";
import { clear, hit, type LimitName, refund } from "./rate-limit.server";

/*
 * Password guessing limits (docs/security.md). Every point is spent BEFORE the password is
 * verified, so a parallel burst cannot all be evaluated, and is given back when it was right.
 * Past the per-account limit sign-in slows down rather than locks, so a botnet cannot lock the owner out.
 */

export type LimitScope = "ip" | "account-ip" | "account" | "user";

export type Reservation =
  | { ok: true; passwordWasRight(): Promise<void> }
  | { ok: false; retryAfterSeconds: number; scope: LimitScope };

const NOTHING = async () => {};

export async function reserveLoginAttempt(ip: string, account: string | null): Promise<Reservation> {
  const perIp = await hit("loginPerIp", ip);
  if (!perIp.ok) return { ...perIp, scope: "ip" };
  if (!account) return { ok: true, passwordWasRight: NOTHING };
  return reserveGuess(PASSWORD_LIMITS, ip, account, () => signedInFromBefore(account, ip));
}

export type SecondFactorReservation =
  | { ok: true; codeWasRight(): Promise<void> }
  | { ok: false; retryAfterSeconds: number; scope: LimitScope };

export async function reserveSecondFactorAttempt(
  ip: string,
  userId: string,
): Promise<SecondFactorReservation> {
  const r = await reserveGuess(TWO_FACTOR_LIMITS, ip, userId, () => completedTwoFactorFrom(userId, ip));
  return r.ok ? { ok: true, codeWasRight: r.passwordWasRight } : r;
}

type GuessLimits = { accountIp: LimitName; account: LimitName; slowLane: LimitName };

const PASSWORD_LIMITS: GuessLimits = {
  accountIp: "loginFailuresPerAccountIp",
  account: "loginFailuresPerAccount",
  slowLane: "loginSlowLane",
};
const TWO_FACTOR_LIMITS: GuessLimits = {
  accountIp: "twoFactorFailuresPerAccountIp",
  account: "twoFactorFailuresPerAccount",
  slowLane: "twoFactorSlowLane",
};

async function reserveGuess(
  limits: GuessLimits,
  ip: string,
  account: string,
  knownAddress: () => Promise<boolean>,
): Promise<Reservation> {
  const accountIpKey = `${account} ${ip}`;
  const perAccountIp = await hit(limits.accountIp, accountIpKey);
  if (!perAccountIp.ok) return { ...perAccountIp, scope: "account-ip" };

  const perAccount = await hit(limits.account, account);
  if (!perAccount.ok && !(await knownAddress())) {
    const slow = await hit(limits.slowLane, account);
    if (!slow.ok) {
      await refund(limits.accountIp, accountIpKey);
      return { ...slow, scope: "account" };
    }
  }
  return {
    ok: true,
    async passwordWasRight() {
      await clear(limits.accountIp, accountIpKey);
      // Only this attempt's point: the owner signing in must not wipe an attacker's tally.
      if (perAccount.ok) await refund(limits.account, account);
    },
  };
}

export async function reserveReauth(userId: string): Promise<Reservation> {
  const result = await hit("reauthFailuresPerUser", userId);
  if (!result.ok) return { ...result, scope: "user" };
  return { ok: true, passwordWasRight: () => clear("reauthFailuresPerUser", userId) };
}

async function signedInFromBefore(email: string, ip: string): Promise<boolean> {
  const row = await db()
    .selectFrom("audit_log")
    .innerJoin("user", "user.id", "audit_log.actor_id")
    .select("audit_log.id")
    .where("user.email", "=", email)
    .where("audit_log.action", "=", "auth.login.succeeded")
    .where("audit_log.ip", "=", ip)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

async function completedTwoFactorFrom(userId: string, ip: string): Promise<boolean> {
  const row = await db()
    .selectFrom("audit_log")
    .select("id")
    .where("actor_id", "=", userId)
    .where("action", "=", "auth.two_factor.succeeded")
    .where("ip", "=", ip)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
