import { db } from "../db.server";
import { clear, hit, type LimitName, refund } from "./rate-limit.server";

/*
 * Password guessing limits (sign-in and Settings' current-password check). Every point is spent
 * atomically BEFORE the password is verified, so a parallel burst cannot all be evaluated, and is
 * given back when the password was right.
 *
 * Sign-in:
 * 1. per IP: RATE_LIMIT_LOGIN_PER_IP attempts a minute, whatever the account;
 * 2. per account + IP: RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT failures in 15 minutes, then a hard
 *    429 for that address only: guesses from one address cannot lock the owner out elsewhere;
 * 3. per account over all addresses: RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL failures in
 *    15 minutes. Past it, sign-in slows down rather than locks: addresses the account signed in
 *    from before (its audit trail) pass as usual; any other address shares one attempt every
 *    LOGIN_SLOW_LANE_SECONDS for this account (429 with a Retry-After of a few seconds). A botnet
 *    is held to a trickle while the owner keeps signing in from home.
 * Sign-in's second step (two-factor codes): steps 2 and 3 again, with their own counters, per
 * account id; "signed in from before" there means a completed two-factor sign-in from the address
 * (the first step's success proves nothing: the guesser has the password). The first step's per-IP
 * budget already bounds how many pending sign-ins one address can start.
 * Re-authentication: the per-account budget of step 2, per signed-in user.
 */

export type LimitScope = "ip" | "account-ip" | "account" | "user";

export type Reservation =
  | { ok: true; passwordWasRight(): Promise<void> }
  | { ok: false; retryAfterSeconds: number; scope: LimitScope };

const NOTHING = async () => {};

/** Reserves one sign-in attempt for `account` (a valid, normalised address, or null) from `ip`. */
export async function reserveLoginAttempt(ip: string, account: string | null): Promise<Reservation> {
  const perIp = await hit("loginPerIp", ip);
  if (!perIp.ok) return { ...perIp, scope: "ip" };
  // Without an address no password is checked, so there is no account to protect.
  if (!account) return { ok: true, passwordWasRight: NOTHING };
  return reserveGuess(PASSWORD_LIMITS, ip, account, () => signedInFromBefore(account, ip));
}

export type SecondFactorReservation =
  | { ok: true; codeWasRight(): Promise<void> }
  | { ok: false; retryAfterSeconds: number; scope: LimitScope };

/** Reserves one second-factor code check for the account `userId` from `ip`. */
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

/** Steps 2 and 3 above for one guess at `account`'s secret from `ip`. */
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
      // Not evaluated, so it must not count against this address's own budget.
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

/** Reserves one current-password check for a signed-in user. */
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
