import type { RouterContextProvider } from "react-router";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { clientIp } from "../http/request-info.server";
import { english } from "../i18n/english.server";
import { type Message, message } from "../i18n/message";
import { signIn } from "../metrics/metrics.server";
import { reserveLoginAttempt } from "../security/login-limits.server";
import { loginSchema } from "./account-schemas";
import { breachedAtSignIn } from "./breached-passwords.server";
import { dummyPasswordHash, verifyPassword } from "./password.server";
import { singleSignOnRequiredMessage } from "./sso-messages";
import { passwordBlockedBy } from "./sso-providers.server";

// One message for any bad pair, so the form never tells which accounts exist.
export const BAD_CREDENTIALS = message("auth.badCredentials");
export const UNVERIFIED = message("auth.unverified");
export const DISABLED = message("auth.disabled");

export type LoginFailure = "invalid" | "disabled" | "unverified" | "sso_required";

class LoginError extends Error {
  readonly said: Message;

  constructor(readonly reason: LoginFailure) {
    const said = reason === "unverified" ? UNVERIFIED : reason === "disabled" ? DISABLED : BAD_CREDENTIALS;
    super(english(said));
    this.said = said;
  }
}

type LoginUser = { id: string; email: string };

/** A dummy hash for a missing one, so the time taken does not tell which accounts exist or have a password. */
async function passwordMatches(hash: string | null | undefined, password: string): Promise<boolean> {
  const right = await verifyPassword(hash ?? (await dummyPasswordHash()), password);
  return Boolean(hash) && right;
}

const authenticator = new Authenticator<LoginUser>();
authenticator.use(
  new FormStrategy(async ({ form }) => {
    const parsed = loginSchema.safeParse({ email: form.get("email"), password: form.get("password") });
    if (!parsed.success) throw new LoginError("invalid");
    const { email, password } = parsed.data;
    const user = await db()
      .selectFrom("user")
      .select(["id", "email", "password_hash", "status", "email_verified"])
      .where("email", "=", email)
      .executeTakeFirst();
    if (!user?.password_hash || !(await passwordMatches(user?.password_hash, password)))
      throw new LoginError("invalid");
    if (user.status !== "active") throw new LoginError("disabled");
    if (user.email_verified !== 1) throw new LoginError("unverified");
    // Right, but in a breach corpus: in only to a forced change (the password gate).
    if (await breachedAtSignIn(password))
      await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", user.id).execute();
    return { id: user.id, email: user.email };
  }),
  "password",
);

export type LoginOutcome =
  | { ok: true; user: LoginUser }
  | { ok: false; status: 400; message: Message; reason: LoginFailure }
  | { ok: false; status: "rate_limited"; retryAfter: number };

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

/** Only a valid address: people type passwords into the email field. */
function auditedEmail(account: string | null, typed: string) {
  if (account) return { email: account };
  return typed.trim() ? { email: null, emailInvalid: true } : { email: null };
}

export async function attemptLogin(args: Args, typedEmail: string): Promise<LoginOutcome> {
  const parsed = loginSchema.shape.email.safeParse(typedEmail);
  const account = parsed.success ? parsed.data : null;
  const reservation = await reserveLoginAttempt(clientIp(args.context), account);
  if (!reservation.ok) {
    await audit(args, {
      action: "auth.login.rate_limited",
      details: { ...auditedEmail(account, typedEmail), scope: reservation.scope },
    });
    return { ok: false, status: "rate_limited", retryAfter: reservation.retryAfterSeconds };
  }
  try {
    const user = await authenticator.authenticate("password", args.request);
    await reservation.passwordWasRight();
    // Said only after a right password, like a disabled account, so the answer reveals nothing to a guesser.
    const sso = await passwordBlockedBy(user.email);
    if (sso) {
      signIn("password", false);
      await audit(args, {
        action: "auth.login.failed",
        actor: user,
        details: { email: user.email, reason: "sso_required" },
      });
      return {
        ok: false,
        status: 400,
        message: singleSignOnRequiredMessage(sso.name),
        reason: "sso_required",
      };
    }
    await db().updateTable("user").set({ last_login_at: now() }).where("id", "=", user.id).execute();
    await audit(args, { action: "auth.login.succeeded", actor: user, target: { type: "user", id: user.id } });
    return { ok: true, user };
  } catch (error) {
    if (!(error instanceof LoginError)) throw error;
    if (error.reason !== "invalid") await reservation.passwordWasRight();
    signIn("password", false);
    await audit(args, {
      action: "auth.login.failed",
      details: { ...auditedEmail(account, typedEmail), reason: error.reason },
    });
    return { ok: false, status: 400, message: error.said, reason: error.reason };
  }
}

export type PasswordCheck =
  | { ok: true }
  | { ok: false; status: "rate_limited"; retryAfter: number }
  | { ok: false; status: "wrong" };

/** For flows that prove an account with its password outside the login form; the caller audits. */
export async function checkAccountPassword(
  args: Args,
  account: { email: string; password_hash: string | null },
  password: string,
): Promise<PasswordCheck> {
  const reservation = await reserveLoginAttempt(clientIp(args.context), account.email);
  if (!reservation.ok)
    return { ok: false, status: "rate_limited", retryAfter: reservation.retryAfterSeconds };
  if (!(await passwordMatches(account.password_hash, password))) {
    signIn("password", false);
    return { ok: false, status: "wrong" };
  }
  await reservation.passwordWasRight();
  return { ok: true };
}
