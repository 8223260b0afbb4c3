import { db } from "../db.server";
import { clear, hit, refund } from "./rate-limit.server";

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

  const accountIpKey = `${account} ${ip}`;
  const perAccountIp = await hit("loginFailuresPerAccountIp", accountIpKey);
  if (!perAccountIp.ok) return { ...perAccountIp, scope: "account-ip" };

  const perAccount = await hit("loginFailuresPerAccount", account);
  if (!perAccount.ok && !(await signedInFromBefore(account, ip))) {
    const slow = await hit("loginSlowLane", account);
    if (!slow.ok) {
      // Not evaluated, so it must not count against this address's own budget.
      await refund("loginFailuresPerAccountIp", accountIpKey);
      return { ...slow, scope: "account" };
    }
  }
  return {
    ok: true,
    async passwordWasRight() {
      await clear("loginFailuresPerAccountIp", accountIpKey);
      // Only this attempt's point: the owner signing in must not wipe an attacker's tally.
      if (perAccount.ok) await refund("loginFailuresPerAccount", account);
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
