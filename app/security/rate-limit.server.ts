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
import { apiError } from "../http/responses";

type Limiters = {
  loginPerIp: RateLimiterAbstract;
  loginFailuresPerAccount: RateLimiterAbstract;
  publicFormPerIp: RateLimiterAbstract;
};

const RATE_LIMIT_TABLE = "rate_limit"; // db/migrations/007_rate_limit.ts

/**
 * Counters in memory for one instance (SQLite), or in PostgreSQL's `rate_limit` table when
 * several instances share one database, so an attacker cannot multiply the limits by instance.
 */
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
    loginFailuresPerAccount: make("login-account", e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT, 15 * 60),
    publicFormPerIp: make("public-form", e.RATE_LIMIT_PUBLIC_FORMS_PER_IP, 60),
  };
}

let limiters: Limiters | undefined;

function get(): Limiters {
  limiters ??= createLimiters(postgresPoolOf(db()));
  return limiters;
}

/** Forgets every count (tests start each case afresh). */
export async function resetRateLimits() {
  limiters = undefined;
  if (postgresPoolOf(db()))
    await db()
      .deleteFrom(RATE_LIMIT_TABLE as never)
      .execute();
}

/** Drops expired shared counters; run by the scheduled cleanup. */
export async function purgeExpiredRateLimits(): Promise<number> {
  const pool = postgresPoolOf(db());
  if (!pool) return 0;
  const res = await pool.query(`delete from ${RATE_LIMIT_TABLE} where expire < $1`, [Date.now()]);
  return res.rowCount ?? 0;
}

export type LimitName = keyof Limiters;

export type LimitResult = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Spends one point; refuses once the window is used up. */
export async function hit(name: LimitName, key: string): Promise<LimitResult> {
  try {
    await get()[name].consume(key);
    return { ok: true };
  } catch (error) {
    if (error instanceof RateLimiterRes)
      return { ok: false, retryAfterSeconds: Math.ceil(error.msBeforeNext / 1000) };
    throw error;
  }
}

/** Whether the key has points left, without spending one. */
export async function peek(name: LimitName, key: string): Promise<LimitResult> {
  const limiter = get()[name];
  const res = await limiter.get(key);
  if (res && res.consumedPoints >= limiter.points) {
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
  }
  return { ok: true };
}

export async function clear(name: LimitName, key: string) {
  await get()[name].delete(key);
}

export function tooManyRequests(retryAfterSeconds: number, api: boolean) {
  const headers = { "Retry-After": String(retryAfterSeconds) };
  if (api) return apiError(429, "rate_limited", { retryAfter: retryAfterSeconds }, { headers });
  return Response.json(
    { formError: `Too many attempts. Try again in ${retryAfterSeconds} seconds.` },
    { status: 429, headers },
  );
}
