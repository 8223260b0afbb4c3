import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "../env.server";
import { apiError } from "../http/responses";

// In-process counters; the scale-out issue swaps the store for a shared one behind the same names.
type Limiters = {
  loginPerIp: RateLimiterMemory;
  loginFailuresPerAccount: RateLimiterMemory;
  publicFormPerIp: RateLimiterMemory;
};

let limiters: Limiters | undefined;

function get(): Limiters {
  if (!limiters) {
    const e = env();
    limiters = {
      loginPerIp: new RateLimiterMemory({
        keyPrefix: "login-ip",
        points: e.RATE_LIMIT_LOGIN_PER_IP,
        duration: 60,
      }),
      loginFailuresPerAccount: new RateLimiterMemory({
        keyPrefix: "login-account",
        points: e.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT,
        duration: 15 * 60,
      }),
      publicFormPerIp: new RateLimiterMemory({
        keyPrefix: "public-form",
        points: e.RATE_LIMIT_PUBLIC_FORMS_PER_IP,
        duration: 60,
      }),
    };
  }
  return limiters;
}

export function resetRateLimits() {
  limiters = undefined;
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
