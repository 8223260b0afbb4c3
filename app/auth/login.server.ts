import type { RouterContextProvider } from "react-router";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { z } from "zod";
import { audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { clientIp } from "../http/request-info.server";
import { clear, hit, peek } from "../security/rate-limit.server";
import { dummyPasswordHash, verifyPassword } from "./password.server";

export const loginSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(254),
  password: z.string().min(1).max(1024),
});

// The one message for any bad pair, so the form never tells which accounts exist.
export const BAD_CREDENTIALS = "Invalid email or password.";
export const UNVERIFIED = "Please verify your email address before signing in.";
export const DISABLED = "This account is disabled. Contact an administrator.";

export type LoginFailure = "invalid" | "disabled" | "unverified";

export class LoginError extends Error {
  constructor(
    readonly reason: LoginFailure,
    readonly email: string | null,
  ) {
    super(reason === "unverified" ? UNVERIFIED : reason === "disabled" ? DISABLED : BAD_CREDENTIALS);
  }
}

export type LoginUser = { id: string; email: string };

const authenticator = new Authenticator<LoginUser>();
authenticator.use(
  new FormStrategy(async ({ form }) => {
    const parsed = loginSchema.safeParse({ email: form.get("email"), password: form.get("password") });
    if (!parsed.success) throw new LoginError("invalid", null);
    const { email, password } = parsed.data;
    const user = await db()
      .selectFrom("user")
      .select(["id", "email", "password_hash", "status", "email_verified"])
      .where("email", "=", email)
      .executeTakeFirst();
    // Verify against a dummy hash for unknown accounts so timing does not reveal them.
    const ok = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), password);
    if (!user?.password_hash || !ok) throw new LoginError("invalid", email);
    if (user.status !== "active") throw new LoginError("disabled", email);
    if (user.email_verified !== 1) throw new LoginError("unverified", email);
    return { id: user.id, email: user.email };
  }),
  "password",
);

export type LoginOutcome =
  | { ok: true; user: LoginUser }
  | { ok: false; status: 400 | 429; message: string; retryAfter?: number; reason?: LoginFailure };

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

/** Checks the rate limits, the credentials and the account state, and audits the attempt. */
export async function attemptLogin(args: Args, emailHint: string): Promise<LoginOutcome> {
  const ip = clientIp(args.context);
  const accountKey = emailHint.trim().toLowerCase();
  const perIp = await hit("loginPerIp", ip);
  const perAccount = accountKey ? await peek("loginFailuresPerAccount", accountKey) : { ok: true as const };
  if (!perIp.ok || !perAccount.ok) {
    const retryAfter = !perIp.ok
      ? perIp.retryAfterSeconds
      : perAccount.ok
        ? 60
        : perAccount.retryAfterSeconds;
    await audit(args, { action: "auth.login.rate_limited", details: { email: accountKey || null } });
    return {
      ok: false,
      status: 429,
      message: `Too many attempts. Try again in ${retryAfter} seconds.`,
      retryAfter,
    };
  }
  try {
    const user = await authenticator.authenticate("password", args.request);
    await clear("loginFailuresPerAccount", accountKey);
    await db().updateTable("user").set({ last_login_at: now() }).where("id", "=", user.id).execute();
    await audit(args, { action: "auth.login.succeeded", actor: user, target: { type: "user", id: user.id } });
    return { ok: true, user };
  } catch (error) {
    if (!(error instanceof LoginError)) throw error;
    if (accountKey) await hit("loginFailuresPerAccount", accountKey);
    await audit(args, {
      action: "auth.login.failed",
      details: { email: error.email ?? (accountKey || null), reason: error.reason },
    });
    return { ok: false, status: 400, message: error.message, reason: error.reason };
  }
}
