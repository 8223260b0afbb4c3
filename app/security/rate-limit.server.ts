import type pg from "pg";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { postgresPoolOf } from "../../db/connection";
import { db } from "../db.server";
import { env } from "../env.server";
import { rateLimitRefused } from "../metrics/metrics.server";

type Limiters = {
  loginPerIp: RateLimiterAbstract;
  loginFailuresPerAccountIp: RateLimiterAbstract;
  loginFailuresPerAccount: RateLimiterAbstract;
  loginSlowLane: RateLimiterAbstract;
  reauthFailuresPerUser: RateLimiterAbstract;
  publicFormPerIp: RateLimiterAbstract;
  testMailPerUser: RateLimiterAbstract;
  twoFactorFailuresPerAccountIp: RateLimiterAbstract;
  twoFactorFailuresPerAccount: RateLimiterAbstract;
  twoFactorSlowLane: RateLimiterAbstract;
  passkeyPerIp: RateLimiterAbstract;
  apiTokenUse: RateLimiterAbstract;
  scimPerDirectory: RateLimiterAbstract;
};

/** Once an account's shared budget is spent, unknown addresses get one attempt this often. */
const LOGIN_SLOW_LANE_SECONDS = 5;

const RATE_LIMIT_TABLE = "rate_limit"; // db/migrations/007_rate_limit.ts

/** In PostgreSQL's table when instances share a database, so an attacker cannot multiply the limits by instance. */
export function createLimiters(pool?: pg.Pool): Limiters {
  const e = env();
  const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract =>
    pool
      ? new RateLimiterPostgres({
          storeClient: pool,
          storeType: "pool",
          tableName: RATE_LIMIT_TABLE,
          tableCreated: true,
          clearExpiredByTimeout: false,
          keyPrefix,
          points,
          duration,
        })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  return {
    loginPerIp: make("login-ip", e.RATE_LIMIT_LOGIN_PER_IP, 60),
    loginFailuresPerAccountIp: make("login-account-ip", e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT, 15 * 60),
    loginFailuresPerAccount: make("login-account", e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL, 15 * 60),
    loginSlowLane: make("login-slow", 1, LOGIN_SLOW_LANE_SECONDS),
    reauthFailuresPerUser: make("reauth-user", e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT, 15 * 60),
    publicFormPerIp: make("public-form", e.RATE_LIMIT_PUBLIC_FORMS_PER_IP, 60),
    // Each test email is a real send on the provider's account (and its reputation).
    testMailPerUser: make("test-mail", 5, 60),
    twoFactorFailuresPerAccountIp: make(
      "two-factor-account-ip",
      e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT,
      15 * 60,
    ),
    twoFactorFailuresPerAccount: make(
      "two-factor-account",
      e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL,
      15 * 60,
    ),
    twoFactorSlowLane: make("two-factor-slow", 1, LOGIN_SLOW_LANE_SECONDS),
    // A passkey sign-in is two or three requests.
    passkeyPerIp: make("passkey-ip", e.RATE_LIMIT_LOGIN_PER_IP * 3, 60),
    apiTokenUse: make("api-token", e.RATE_LIMIT_API_TOKEN_PER_MINUTE, 60),
    // A first sync sends a request per person.
    scimPerDirectory: make("scim-directory", e.RATE_LIMIT_SCIM_PER_MINUTE, 60),
  };
}

let limiters: Limiters | undefined;

function get(): Limiters {
  limiters ??= createLimiters(postgresPoolOf(db()));
  return limiters;
}

export async function resetRateLimits() {
  limiters = undefined;
  // The table is the limiter library's, not in db/schema.ts.
  await postgresPoolOf(db())?.query(`delete from ${RATE_LIMIT_TABLE}`);
}

export async function purgeExpiredRateLimits(): Promise<number> {
  const pool = postgresPoolOf(db());
  if (!pool) return 0;
  const res = await pool.query(`delete from ${RATE_LIMIT_TABLE} where expire < $1`, [Date.now()]);
  return res.rowCount ?? 0;
}

export type LimitName = keyof Limiters;

export type LimitResult = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Atomic, so a parallel burst cannot all pass. */
export async function hit(name: LimitName, key: string): Promise<LimitResult> {
  try {
    await get()[name].consume(key);
    return { ok: true };
  } catch (error) {
    if (error instanceof RateLimiterRes) {
      rateLimitRefused(name);
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    }
    throw error;
  }
}

/** The attempt turned out not to count. */
export async function refund(name: LimitName, key: string) {
  await get()[name].reward(key, 1);
}

export async function clear(name: LimitName, key: string) {
  await get()[name].delete(key);
}

export class RateLimitedError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("rate_limited");
  }
}
