import { createCookie, type RouterContextProvider, redirect } from "react-router";
import { audit } from "../audit/audit.server";
import { TOKEN_LIFETIME_MS } from "../config";
import { db } from "../db.server";
import { secureCookies, sessionSecrets } from "../env.server";
import { clientIp } from "../http/request-info.server";
import { safeRedirectPath } from "../http/responses";
import { type Message, message } from "../i18n/message";
import { signIn } from "../metrics/metrics.server";
import { type LimitScope, reserveSecondFactorAttempt } from "../security/login-limits.server";
import { startSession } from "./session.server";
import { noteSignIn } from "./sign-in-alerts.server";
import { consumeToken, inspectToken, issueToken } from "./tokens.server";
import { spendSecondFactorCode } from "./two-factor.server";

// Sign-in's second step: a signed cookie holds the pending sign-in with a single-use nonce, so a
// copy of the cookie is worth nothing once the right code has started the session.

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

const PENDING_SIGN_IN_SECONDS = TOKEN_LIFETIME_MS["two-factor-pending"] / 1000;
const TWO_FACTOR_PAGE = "/login/two-factor";

/** `method` is sign-in.server.ts's SignInMethod (not imported: that module imports this one). */
export type PendingSignIn = {
  userId: string;
  redirectTo: string;
  method: string;
  expiresAt: number;
  /** Only its hash is stored. */
  nonce: string;
};

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

export async function askForSecondFactor(
  userId: string,
  method: string,
  redirectTo: FormDataEntryValue | string | null | undefined,
): Promise<Response> {
  const pending: PendingSignIn = {
    userId,
    nonce: await issueToken({ kind: "two-factor-pending", userId }),
    method,
    redirectTo: safeRedirectPath(redirectTo ?? null),
    // The cookie's own max-age is the browser's business; this is the server's.
    expiresAt: Date.now() + PENDING_SIGN_IN_SECONDS * 1000,
  };
  return redirect(TWO_FACTOR_PAGE, {
    headers: { "Set-Cookie": await pendingCookie().serialize(pending) },
  });
}

function readPending(value: unknown): PendingSignIn | null {
  const v = value as Partial<PendingSignIn> | null;
  if (!v || typeof v.userId !== "string" || typeof v.expiresAt !== "number" || typeof v.nonce !== "string")
    return null;
  if (v.expiresAt <= Date.now()) return null;
  return v as PendingSignIn;
}

export async function pendingSignIn(request: Request): Promise<PendingSignIn | null> {
  const value = readPending(await pendingCookie().parse(request.headers.get("Cookie")));
  if (!value) return null;
  const token = await inspectToken(["two-factor-pending"], value.nonce);
  return token.ok && token.token.userId === value.userId ? value : null;
}

async function clearPendingSignIn(): Promise<string> {
  return pendingCookie().serialize("", { maxAge: 0 });
}

export type SecondStepOutcome =
  | { ok: true; response: Response }
  | { ok: false; status: "expired" }
  | { ok: false; status: "rate_limited"; retryAfter: number }
  | { ok: false; status: 400; message: Message };

export const WRONG_CODE = message("twoFactor.wrongCode");

export type SecondFactorCheck =
  | { ok: true; used: Extract<Awaited<ReturnType<typeof spendSecondFactorCode>>, { ok: true }> }
  | { ok: false; status: "rate_limited"; retryAfter: number; scope: LimitScope }
  | { ok: false; status: "wrong_code" };

/** The attempt is reserved before the code is checked, so a parallel burst cannot all be evaluated; the caller audits. */
export async function checkSecondFactorCode(
  args: Args,
  userId: string,
  code: string,
): Promise<SecondFactorCheck> {
  const reservation = await reserveSecondFactorAttempt(clientIp(args.context), userId);
  if (!reservation.ok)
    return {
      ok: false,
      status: "rate_limited",
      retryAfter: reservation.retryAfterSeconds,
      scope: reservation.scope,
    };
  const used = await spendSecondFactorCode(userId, code);
  if (!used.ok) return { ok: false, status: "wrong_code" };
  await reservation.codeWasRight();
  return { ok: true, used };
}

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
  const checked = await checkSecondFactorCode(args, user.id, code);
  if (!checked.ok) {
    await audit(args, {
      action: checked.status === "rate_limited" ? "auth.two_factor.rate_limited" : "auth.two_factor.failed",
      actor,
      target,
      details: checked.status === "rate_limited" ? { scope: checked.scope } : { method: pending.method },
    });
    return checked.status === "rate_limited"
      ? { ok: false, status: "rate_limited", retryAfter: checked.retryAfter }
      : { ok: false, status: 400, message: WRONG_CODE };
  }
  const used = checked.used;
  // Spent before the session starts: of two requests with one pending state, one signs in.
  const spent = await consumeToken(["two-factor-pending"], pending.nonce);
  if (!spent.ok) return { ok: false, status: "expired" };
  await audit(args, {
    action: "auth.two_factor.succeeded",
    actor,
    target,
    details: { method: pending.method, code: used.kind, recoveryCodesLeft: used.recoveryCodesLeft },
  });
  const headers = new Headers();
  for (const c of await startSession(user.id, args)) headers.append("Set-Cookie", c);
  for (const c of await noteSignIn(user.id, args)) headers.append("Set-Cookie", c);
  signIn("two-factor", true);
  headers.append("Set-Cookie", await clearPendingSignIn());
  return { ok: true, response: redirect(pending.redirectTo, { headers }) };
}
