import { createCookie, type RouterContextProvider, redirect } from "react-router";
import { audit } from "../audit/audit.server";
import { db } from "../db.server";
import { secureCookies, sessionSecrets } from "../env.server";
import { safeRedirectPath } from "../http/responses";
import { signIn } from "../metrics/metrics.server";
import { clear, hit } from "../security/rate-limit.server";
import { startSession } from "./session.server";
import { spendSecondFactorCode } from "./two-factor.server";

// Sign-in's second step. After the first factor, completeSignIn (sign-in.server.ts) starts no
// session for an account with two-factor: it sets this signed, httpOnly cookie (the user, where
// to go next, and when it expires, five minutes on) and sends the browser to /login/two-factor.
// Only a right code there starts the session. Wrong codes spend the account's own budget.

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

export const PENDING_SIGN_IN_SECONDS = 5 * 60;
export const TWO_FACTOR_PAGE = "/login/two-factor";

/** `method` is sign-in.server.ts's SignInMethod (not imported: that module imports this one). */
export type PendingSignIn = { userId: string; redirectTo: string; method: string; expiresAt: number };

let cookie: ReturnType<typeof createCookie> | undefined;
function pendingCookie() {
  cookie ??= createCookie("__two_factor", {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies(),
    path: "/",
    secrets: sessionSecrets(),
    maxAge: PENDING_SIGN_IN_SECONDS,
  });
  return cookie;
}

/** The redirect to the code page, carrying the pending state (no session yet). */
export async function askForSecondFactor(
  userId: string,
  method: string,
  redirectTo: FormDataEntryValue | string | null | undefined,
): Promise<Response> {
  const pending: PendingSignIn = {
    userId,
    method,
    redirectTo: safeRedirectPath(redirectTo ?? null),
    // The cookie's own max-age is the browser's business; this is the server's.
    expiresAt: Date.now() + PENDING_SIGN_IN_SECONDS * 1000,
  };
  return redirect(TWO_FACTOR_PAGE, {
    headers: { "Set-Cookie": await pendingCookie().serialize(pending) },
  });
}

/** The request's pending sign-in, or null when absent, forged or expired. */
export async function pendingSignIn(request: Request): Promise<PendingSignIn | null> {
  const value = (await pendingCookie().parse(request.headers.get("Cookie"))) as PendingSignIn | null;
  if (!value || typeof value.userId !== "string" || typeof value.expiresAt !== "number") return null;
  if (value.expiresAt <= Date.now()) return null;
  return value;
}

export async function clearPendingSignIn(): Promise<string> {
  return pendingCookie().serialize("", { maxAge: 0 });
}

export type SecondStepOutcome =
  | { ok: true; response: Response }
  | { ok: false; status: "expired" }
  | { ok: false; status: "rate_limited"; retryAfter: number }
  | { ok: false; status: 400; message: string };

export const WRONG_CODE = "That code is not right. Try the current code from your app, or a recovery code.";

/** Checks the code of a pending sign-in; a right one starts the session and clears the state. */
export async function completeSecondStep(args: Args, code: string): Promise<SecondStepOutcome> {
  const pending = await pendingSignIn(args.request);
  if (!pending) return { ok: false, status: "expired" };
  const user = await db()
    .selectFrom("user")
    .select(["id", "email", "status"])
    .where("id", "=", pending.userId)
    .executeTakeFirst();
  if (user?.status !== "active") return { ok: false, status: "expired" };
  const actor = { id: user.id, email: user.email };
  const target = { type: "user", id: user.id };
  // Spent before the code is checked, so a parallel burst cannot all be evaluated.
  const limit = await hit("twoFactorFailuresPerUser", user.id);
  if (!limit.ok) {
    await audit(args, { action: "auth.two_factor.rate_limited", actor, target });
    return { ok: false, status: "rate_limited", retryAfter: limit.retryAfterSeconds };
  }
  const used = await spendSecondFactorCode(user.id, code);
  if (!used.ok) {
    await audit(args, {
      action: "auth.two_factor.failed",
      actor,
      target,
      details: { method: pending.method },
    });
    return { ok: false, status: 400, message: WRONG_CODE };
  }
  await clear("twoFactorFailuresPerUser", user.id);
  await audit(args, {
    action: "auth.two_factor.succeeded",
    actor,
    target,
    details: { method: pending.method, code: used.kind, recoveryCodesLeft: used.recoveryCodesLeft },
  });
  const headers = new Headers();
  for (const c of await startSession(user.id, args)) headers.append("Set-Cookie", c);
  signIn("two-factor", true);
  headers.append("Set-Cookie", await clearPendingSignIn());
  return { ok: true, response: redirect(pending.redirectTo, { headers }) };
}
