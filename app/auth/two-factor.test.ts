import { generateTOTP } from "@epic-web/totp";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { args, context, PASSWORD, run, sessionCookieFor, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { env } from "../env.server";
import {
  action as securityAction,
  loader as settingsLoader,
} from "../routes/dashboard.settings.security/route";
import { action as systemAction } from "../routes/dashboard.settings.system/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { action as loginAction } from "../routes/login/route";
import { action as stepAction, loader as stepLoader } from "../routes/login.two-factor";
import { action as logoutAction } from "../routes/logout";
import { resetRateLimits } from "../security/rate-limit.server";
import { authContext, getSessionUser, invalidateSessions } from "./session.server";
import {
  hasTwoFactor,
  secondFactorSatisfied,
  twoFactorRequiredFor,
  twoFactorView,
} from "./two-factor.server";

// Two-factor authentication (docs/security.md): enrolment in Settings, the second sign-in step, recovery
// codes, re-authentication, the super admin's reset and role policy, refusals with nothing changed.

const mail = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());
afterEach(() => vi.useRealTimers());

type User = Awaited<ReturnType<typeof signedIn>>;

/** Moves the clock (Date only) by `seconds`: each TOTP step is 30 s, and a code counts once. */
function later(seconds: number) {
  const base = Date.now();
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(base + seconds * 1000);
}

async function codeFor(secret: string) {
  return (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;
}

/** The intent's Settings page: the roles policy is System's, every other two-factor form Security's. */
function settings(values: Record<string, string>, cookie: string, ctx = context()) {
  const { path, action } =
    values.intent === "two-factor-roles"
      ? { path: "/dashboard/settings/system", action: systemAction }
      : { path: "/dashboard/settings/security", action: securityAction };
  return run(() => action(args(formRequest(path, values, { cookie }), {}, ctx)));
}

async function view(cookie: string) {
  const out = await run(() =>
    settingsLoader(args(formRequest("/dashboard/settings/security", {}, { cookie }))),
  );
  return (out.body as { twoFactor: { view: { state: string; secret?: string; recoveryCodesLeft?: number } } })
    .twoFactor;
}

const row = (userId: string) =>
  db().selectFrom("user_two_factor").selectAll().where("user_id", "=", userId).executeTakeFirst();
const codes = (userId: string) =>
  db()
    .selectFrom("two_factor_recovery_code")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("id")
    .execute();
const audits = (action: string, userId: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("action", "=", action as never)
    .where("target_id", "=", userId)
    .execute();

/** Enrols `u`; answers the base32 secret and the recovery codes. */
async function enrol(u: User) {
  expect((await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, u.cookie)).status).toBe(
    200,
  );
  const secret = (await view(u.cookie)).view.secret!;
  const out = await settings({ intent: "two-factor-confirm", code: await codeFor(secret) }, u.cookie);
  expect(out.status).toBe(200);
  return { secret, recovery: (out.body as { recoveryCodes: string[] }).recoveryCodes };
}

/** Password sign-in; answers the pending-state cookie (and asserts no session began). */
async function password(u: User, redirectTo = "/dashboard/users", ip?: string) {
  const out = await run(() =>
    loginAction(
      args(formRequest("/login", { email: u.email, password: PASSWORD, redirectTo }), {}, context(ip)),
    ),
  );
  expect(out.status).toBe(302);
  expect(out.headers.get("Location")).toBe("/login/two-factor");
  const setCookie = out.headers.get("Set-Cookie") ?? "";
  expect(setCookie).not.toContain("__session=");
  return setCookie.split(";")[0]!;
}

function step(code: string, cookie: string, ip?: string) {
  return run(() => stepAction(args(formRequest("/login/two-factor", { code }, { cookie }), {}, context(ip))));
}

async function sessionsOf(userId: string) {
  return (await db().selectFrom("session").select("id").where("user_id", "=", userId).execute()).length;
}

describe("enrolment in Settings", () => {
  it("shows a QR code and the secret, stores the secret encrypted, and turns on only with a right code", async () => {
    const u = await signedIn(["user"]);
    expect((await view(u.cookie)).view.state).toBe("off");
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, u.cookie);
    const pending = (await view(u.cookie)).view as { state: string; secret: string; qrCode: string };
    expect(pending.state).toBe("pending");
    expect(pending.secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(pending.qrCode).toMatch(/^data:image\/png;base64,/);
    const stored = (await row(u.id))!;
    expect(stored.secret).not.toContain(pending.secret);
    expect(stored.secret).toMatch(/^v1:/);

    // A wrong code: refused, nothing turned on.
    const before = await row(u.id);
    const wrong = await settings({ intent: "two-factor-confirm", code: "000000" }, u.cookie);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ errors: { code: expect.stringMatching(/not right/) } });
    expect(await row(u.id)).toEqual(before);
    expect(await codes(u.id)).toHaveLength(0);
    expect(await hasTwoFactor(u.id)).toBe(false);
    expect(await audits("account.two_factor.confirm_failed", u.id)).toHaveLength(1);

    const ok = await settings(
      { intent: "two-factor-confirm", code: await codeFor(pending.secret) },
      u.cookie,
    );
    expect(ok.status).toBe(200);
    const recovery = (ok.body as { recoveryCodes: string[] }).recoveryCodes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    const stored2 = await codes(u.id);
    expect(stored2).toHaveLength(10);
    // Hashed: no stored value is a code.
    for (const c of stored2) expect(recovery.map((r) => r.replace("-", ""))).not.toContain(c.code_hash);
    expect(await hasTwoFactor(u.id)).toBe(true);
    expect(await audits("account.two_factor.enable", u.id)).toHaveLength(1);
    // Never shown again once on.
    const on = (await view(u.cookie)).view;
    expect(on).toEqual({ state: "on", recoveryCodesLeft: 10 });
    expect(JSON.stringify(on)).not.toContain(pending.secret);
  });

  it("refuses to start again while on, and to confirm without a started enrolment", async () => {
    const u = await signedIn(["user"]);
    expect((await settings({ intent: "two-factor-confirm", code: "123456" }, u.cookie)).status).toBe(403);
    expect(await row(u.id)).toBeUndefined();
    await enrol(u);
    const before = await row(u.id);
    expect((await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, u.cookie)).status).toBe(
      403,
    );
    expect(await row(u.id)).toEqual(before);
  });

  it("asks for the password: without it or with a wrong one nothing is stored", async () => {
    const u = await signedIn(["user"]);
    const missing = await settings({ intent: "two-factor-start" }, u.cookie);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errors: { currentPassword: expect.any(String) } });
    const wrong = await settings(
      { intent: "two-factor-start", currentPassword: "not the password" },
      u.cookie,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ errors: { currentPassword: "The current password is not correct." } });
    expect(await row(u.id)).toBeUndefined();
    expect(await codes(u.id)).toHaveLength(0);
    expect((await view(u.cookie)).view).toEqual({ state: "off" });
    expect(await audits("account.two_factor.enrol_started", u.id)).toHaveLength(0);
    expect(await audits("account.reauth.failed", u.id)).toHaveLength(1);
    // Confirming needs a started enrolment, so nothing can be turned on either.
    expect((await settings({ intent: "two-factor-confirm", code: "123456" }, u.cookie)).status).toBe(403);
    expect(await hasTwoFactor(u.id)).toBe(false);
  });

  it("an enrolment left half-done expires: its secret is no longer shown nor confirmable", async () => {
    const u = await signedIn(["user"]);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, u.cookie);
    const secret = (await view(u.cookie)).view.secret!;
    later(16 * 60);
    expect((await view(u.cookie)).view).toEqual({ state: "off" });
    const out = await settings({ intent: "two-factor-confirm", code: await codeFor(secret) }, u.cookie);
    expect(out.status).toBe(403);
    expect(await hasTwoFactor(u.id)).toBe(false);
    expect(await codes(u.id)).toHaveLength(0);
  });

  it("an account without a password (single sign-on) enrols only right after signing in", async () => {
    const u = await signedIn(["user"]);
    await db().updateTable("user").set({ password_hash: null }).where("id", "=", u.id).execute();
    later(11 * 60);
    const stale = await settings({ intent: "two-factor-start" }, u.cookie);
    expect(stale.status).toBe(403);
    expect(await row(u.id)).toBeUndefined();
    vi.useRealTimers();
    const fresh = await sessionCookieFor(u.id);
    expect((await settings({ intent: "two-factor-start" }, fresh)).status).toBe(200);
    expect((await row(u.id))?.confirmed_at).toBeNull();
  });
});

describe("a pending enrolment belongs to the session that started it", () => {
  const enrolTokens = (userId: string) =>
    db().selectFrom("user_token").selectAll().where("user_id", "=", userId).execute();

  /** The state a stolen session must not move: two-factor off, no recovery codes, no enable audit. */
  async function untouched(userId: string) {
    expect(await hasTwoFactor(userId)).toBe(false);
    expect(await codes(userId)).toHaveLength(0);
    expect(await audits("account.two_factor.enable", userId)).toHaveLength(0);
    expect(await sessionsOf(userId)).toBeGreaterThan(0);
  }

  it("another session of the same account neither sees the secret nor confirms with it", async () => {
    const owner = await signedIn(["user"]);
    const stolen = await sessionCookieFor(owner.id); // a second session: the thief's
    // 1-2. The owner re-authenticates and starts.
    expect(
      (await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, owner.cookie)).status,
    ).toBe(200);
    const secret = (await view(owner.cookie)).view.secret!;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    const before = await row(owner.id);

    // 3. The other session reads Settings: no secret, no QR code, only that one is in progress.
    const seen = await view(stolen);
    expect(seen.view).toEqual({ state: "elsewhere" });
    expect(JSON.stringify(seen)).not.toContain(secret);
    expect(JSON.stringify(seen)).not.toContain("data:image");

    // 4. Even with the secret (say, read over the owner's shoulder), confirming is refused, nothing changes.
    const out = await settings({ intent: "two-factor-confirm", code: await codeFor(secret) }, stolen);
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({ formError: expect.stringMatching(/another session/) });
    expect(await row(owner.id)).toEqual(before);
    await untouched(owner.id);

    // The owner's own session still completes enrolment, with the same code.
    const ok = await settings({ intent: "two-factor-confirm", code: await codeFor(secret) }, owner.cookie);
    expect(ok.status).toBe(200);
    expect((ok.body as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);
    expect(await hasTwoFactor(owner.id)).toBe(true);
    expect((await view(stolen)).view).toEqual({ state: "on", recoveryCodesLeft: 10 });
  });

  it("starting in one session replaces an enrolment started in another", async () => {
    const owner = await signedIn(["user"]);
    const other = await sessionCookieFor(owner.id);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, owner.cookie);
    const first = (await view(owner.cookie)).view.secret!;
    // The other session re-authenticates too: it now owns a new enrolment, the first is gone.
    expect((await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, other)).status).toBe(
      200,
    );
    const second = (await view(other)).view.secret!;
    expect(second).not.toBe(first);
    expect((await view(owner.cookie)).view).toEqual({ state: "elsewhere" });
    const out = await settings({ intent: "two-factor-confirm", code: await codeFor(second) }, owner.cookie);
    expect(out.status).toBe(403);
    await untouched(owner.id);
    expect(
      (await settings({ intent: "two-factor-confirm", code: await codeFor(second) }, other)).status,
    ).toBe(200);
  });

  it("signing out abandons the enrolment: no session sees or confirms it afterwards", async () => {
    const owner = await signedIn(["user"]);
    const other = await sessionCookieFor(owner.id);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, owner.cookie);
    const secret = (await view(owner.cookie)).view.secret!;
    const out = await run(() => logoutAction(args(formRequest("/logout", {}, { cookie: owner.cookie }))));
    expect(out.status).toBe(302);
    expect(await enrolTokens(owner.id)).toEqual([]);
    expect((await view(other)).view).toEqual({ state: "off" });
    const again = await sessionCookieFor(owner.id);
    expect((await view(again)).view).toEqual({ state: "off" });
    for (const cookie of [other, again]) {
      const refused = await settings({ intent: "two-factor-confirm", code: await codeFor(secret) }, cookie);
      expect(refused.status).toBe(403);
    }
    await untouched(owner.id);
  });

  it("a session ended some other way (Settings' session list, a reset) abandons it too", async () => {
    const owner = await signedIn(["user"]);
    const other = await sessionCookieFor(owner.id);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, owner.cookie);
    const secret = (await view(owner.cookie)).view.secret!;
    const me = (await getSessionUser(args(formRequest("/dashboard", {}, { cookie: owner.cookie }))))!;
    await db().deleteFrom("session").where("id", "=", me.sessionId).execute();
    await invalidateSessions();
    expect((await view(other)).view).toEqual({ state: "off" });
    const refused = await settings({ intent: "two-factor-confirm", code: await codeFor(secret) }, other);
    expect(refused.status).toBe(403);
    await untouched(owner.id);
  });

  it("while viewing as the owner, even from the owner's own session, no secret and no confirmation", async () => {
    const owner = await signedIn(["user"]);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, owner.cookie);
    const secret = (await view(owner.cookie)).view.secret!;
    const me = (await getSessionUser(args(formRequest("/dashboard", {}, { cookie: owner.cookie }))))!;
    const viewingAs = () => {
      const ctx = context();
      ctx.set(authContext, {
        user: { ...me, impersonator: { id: "someone-else", email: "boss@example.test" } },
        renewCookie: null,
      });
      return ctx;
    };
    const page = await run(() =>
      settingsLoader(
        args(formRequest("/dashboard/settings/security", {}, { cookie: owner.cookie }), {}, viewingAs()),
      ),
    );
    expect(page.status).toBe(200);
    expect(JSON.stringify(page.body)).not.toContain(secret);
    expect((page.body as { twoFactor: { view: unknown } }).twoFactor.view).toEqual({ state: "off" });
    const out = await settings(
      { intent: "two-factor-confirm", code: await codeFor(secret) },
      owner.cookie,
      viewingAs(),
    );
    expect(out.status).toBe(403);
    await untouched(owner.id);
  });
});

describe("the second sign-in step", () => {
  it("starts no session after the password; a right code does, once; a replayed code is refused", async () => {
    const u = await signedIn(["user"]);
    const { secret } = await enrol(u);
    const sessions = await sessionsOf(u.id);
    later(30);
    const pending = await password(u);
    expect(await sessionsOf(u.id)).toBe(sessions);
    // The pending state is not a signed-in session.
    expect(await getSessionUser(args(formRequest("/dashboard", {}, { cookie: pending })))).toBeNull();
    expect(
      (await run(() => stepLoader(args(formRequest("/login/two-factor", {}, { cookie: pending }))))).status,
    ).toBe(200);

    const code = await codeFor(secret);
    const ok = await step(code, pending);
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/dashboard/users");
    expect(ok.headers.get("Set-Cookie")).toContain("__session=");
    expect(await sessionsOf(u.id)).toBe(sessions + 1);
    expect(await audits("auth.two_factor.succeeded", u.id)).toHaveLength(1);

    // The same code again, with a fresh pending state: refused, no session.
    const again = await password(u);
    const replay = await step(code, again);
    expect(replay.status).toBe(400);
    expect(await sessionsOf(u.id)).toBe(sessions + 1);
    expect(await audits("auth.two_factor.failed", u.id)).toHaveLength(1);
  });

  it("the pending state is single use: replaying it after a completed sign-in is refused", async () => {
    const u = await signedIn(["user"]);
    const { secret } = await enrol(u);
    later(30);
    const pending = await password(u);
    expect((await step(await codeFor(secret), pending)).status).toBe(302);
    const sessions = await sessionsOf(u.id);
    // Someone who copied the pending cookie, with the next code (an observed or phished one).
    later(60);
    const replay = await step(await codeFor(secret), pending);
    expect(replay.status).toBe(302);
    expect(replay.headers.get("Location")).toBe("/login?twoFactor=expired");
    expect(replay.headers.get("Set-Cookie") ?? "").not.toContain("__session=");
    expect(await sessionsOf(u.id)).toBe(sessions);
    const page = await run(() => stepLoader(args(formRequest("/login/two-factor", {}, { cookie: pending }))));
    expect(page.headers.get("Location")).toBe("/login?twoFactor=expired");
    // The code was not spent either: the owner's next sign-in with it still works.
    expect((await step(await codeFor(secret), await password(u))).status).toBe(302);
  });

  it("the code used to confirm enrolment does not sign in", async () => {
    const u = await signedIn(["user"]);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, u.cookie);
    const secret = (await view(u.cookie)).view.secret!;
    const code = await codeFor(secret);
    await settings({ intent: "two-factor-confirm", code }, u.cookie);
    const sessions = await sessionsOf(u.id);
    expect((await step(code, await password(u))).status).toBe(400);
    expect(await sessionsOf(u.id)).toBe(sessions);
  });

  it("a recovery code signs in once", async () => {
    const u = await signedIn(["user"]);
    const { recovery } = await enrol(u);
    const sessions = await sessionsOf(u.id);
    const ok = await step(recovery[3]!.toUpperCase(), await password(u));
    expect(ok.status).toBe(302);
    expect(await sessionsOf(u.id)).toBe(sessions + 1);
    expect((await codes(u.id)).filter((c) => c.used_at)).toHaveLength(1);
    expect((await view(u.cookie)).view).toEqual({ state: "on", recoveryCodesLeft: 9 });
    const again = await step(recovery[3]!, await password(u));
    expect(again.status).toBe(400);
    expect(await sessionsOf(u.id)).toBe(sessions + 1);
  });

  it("limits wrong codes per account and address: 429 with Retry-After, audited, even for the right code", async () => {
    const u = await signedIn(["user"]);
    const { secret } = await enrol(u);
    later(30);
    const attacker = "198.51.100.66";
    const pending = await password(u, undefined, attacker);
    for (let i = 0; i < 5; i++) expect((await step("111111", pending, attacker)).status).toBe(400);
    // A new pending state does not reset the address's budget.
    const limited = await step(await codeFor(secret), await password(u, undefined, attacker), attacker);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ formError: expect.stringMatching(/try again/i) });
    const rows = await audits("auth.two_factor.rate_limited", u.id);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.details!)).toMatchObject({ scope: "account-ip" });
    expect((await row(u.id))!.last_step).not.toBeNull();
    expect(await sessionsOf(u.id)).toBe(1);

    // The owner, from another address, is not locked out by the guesses.
    const home = "203.0.113.20";
    const ok = await step(await codeFor(secret), await password(u, undefined, home), home);
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/dashboard/users");
    expect(await sessionsOf(u.id)).toBe(2);
  });

  it("past the account's shared budget, unknown addresses slow down; the owner's address passes", async () => {
    const u = await signedIn(["user"]);
    const { secret } = await enrol(u);
    const home = "203.0.113.21";
    later(30);
    expect((await step(await codeFor(secret), await password(u, undefined, home), home)).status).toBe(302);
    // A botnet: the account's whole budget spent from many addresses, 5 guesses each.
    const pending = await password(u);
    const budget = env().RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL;
    for (let i = 0; i < budget; i++)
      expect((await step("111111", pending, `198.51.100.${100 + Math.floor(i / 5)}`)).status).toBe(400);
    const fresh = "192.0.2.77";
    expect((await step("111111", pending, fresh)).status).toBe(400); // one attempt in the slow lane
    const slowed = await step("111111", pending, fresh);
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get("Retry-After"))).toBeGreaterThan(0);
    const rows = await audits("auth.two_factor.rate_limited", u.id);
    expect(JSON.parse(rows.at(-1)!.details!)).toMatchObject({ scope: "account" });
    later(90);
    const owner = await step(await codeFor(secret), await password(u, undefined, home), home);
    expect(owner.status).toBe(302);
  });

  it("the pending state expires after five minutes, and a forged one counts for nothing", async () => {
    const u = await signedIn(["user"]);
    const { secret } = await enrol(u);
    const pending = await password(u);
    later(5 * 60 + 1);
    const out = await step(await codeFor(secret), pending);
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/login?twoFactor=expired");
    expect(await sessionsOf(u.id)).toBe(1);
    const loader = await run(() =>
      stepLoader(args(formRequest("/login/two-factor", {}, { cookie: pending }))),
    );
    expect(loader.headers.get("Location")).toBe("/login?twoFactor=expired");

    const forged = `__two_factor=${Buffer.from(JSON.stringify({ userId: u.id, expiresAt: Date.now() + 60_000, redirectTo: "/" })).toString("base64")}`;
    const f = await step(await codeFor(secret), forged);
    expect(f.headers.get("Location")).toBe("/login?twoFactor=expired");
    expect(await sessionsOf(u.id)).toBe(1);
  });

  it("a passkey (two factors) skips the step; an account without two-factor signs in at once", async () => {
    const u = await signedIn(["user"]);
    expect(await secondFactorSatisfied(u.id, 1)).toBe(true);
    await enrol(u);
    expect(await secondFactorSatisfied(u.id, 1)).toBe(false);
    expect(await secondFactorSatisfied(u.id, 2)).toBe(true);
  });
});

describe("turning off and new recovery codes ask for the password", () => {
  it("refuses a wrong password with nothing changed, then does it with the right one", async () => {
    const u = await signedIn(["user"]);
    const { recovery } = await enrol(u);
    const before = { row: await row(u.id), codes: await codes(u.id) };

    for (const intent of ["two-factor-disable", "two-factor-recovery-codes"]) {
      const wrong = await settings({ intent, currentPassword: "not the password" }, u.cookie);
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ errors: { currentPassword: expect.any(String) } });
      expect(await settings({ intent }, u.cookie)).toMatchObject({ status: 400 });
    }
    expect({ row: await row(u.id), codes: await codes(u.id) }).toEqual(before);
    expect(await audits("account.reauth.failed", u.id)).toHaveLength(2);

    const fresh = await settings(
      { intent: "two-factor-recovery-codes", currentPassword: PASSWORD },
      u.cookie,
    );
    expect(fresh.status).toBe(200);
    const newCodes = (fresh.body as { recoveryCodes: string[] }).recoveryCodes;
    expect(newCodes).toHaveLength(10);
    expect(await audits("account.two_factor.recovery_codes", u.id)).toHaveLength(1);
    // The old codes stopped working.
    expect((await step(recovery[0]!, await password(u))).status).toBe(400);
    expect((await step(newCodes[0]!, await password(u))).status).toBe(302);

    const off = await settings({ intent: "two-factor-disable", currentPassword: PASSWORD }, u.cookie);
    expect(off.status).toBe(200);
    expect(await row(u.id)).toBeUndefined();
    expect(await codes(u.id)).toHaveLength(0);
    expect(await audits("account.two_factor.disable", u.id)).toHaveLength(1);
    // Sign-in is one step again.
    const login = await run(() =>
      loginAction(
        args(formRequest("/login", { email: u.email, password: PASSWORD, redirectTo: "/dashboard" })),
      ),
    );
    expect(login.headers.get("Set-Cookie")).toContain("__session=");
  });
});

describe("while a super admin views as the account", () => {
  it("Settings does not show a pending enrolment's secret to the super admin", async () => {
    const u = await signedIn(["user"]);
    await settings({ intent: "two-factor-start", currentPassword: PASSWORD }, u.cookie);
    const me = (await getSessionUser(args(formRequest("/dashboard", {}, { cookie: u.cookie }))))!;
    expect((await twoFactorView(me)).state).toBe("pending");
    const viewed = await twoFactorView({
      ...me,
      impersonator: { id: "someone", email: "boss@example.test" },
    });
    expect(viewed).toEqual({ state: "off" });
  });

  it("every two-factor change is refused, nothing changed", async () => {
    const u = await signedIn(["super_admin"]);
    await enrol(u);
    const victim = await signedIn(["user"]);
    await enrol(victim);
    const viewer = await getSessionUser(args(formRequest("/dashboard", {}, { cookie: u.cookie })));
    const before = {
      roleId: (
        await db().selectFrom("role").select("id").where("name", "=", "guest").executeTakeFirstOrThrow()
      ).id,
      mine: await row(u.id),
      codes: await codes(u.id),
      victim: await row(victim.id),
      policy: await db().selectFrom("two_factor_required_role").selectAll().execute(),
    };
    const viewingAs = () => {
      const ctx = context();
      ctx.set(authContext, {
        user: { ...viewer!, impersonator: { id: "someone-else", email: "boss@example.test" } },
        renewCookie: null,
      });
      return ctx;
    };
    const intents: Record<string, string>[] = [
      { intent: "two-factor-start", currentPassword: PASSWORD },
      { intent: "two-factor-confirm", code: "123456" },
      { intent: "two-factor-disable", currentPassword: PASSWORD },
      { intent: "two-factor-recovery-codes", currentPassword: PASSWORD },
      { intent: "two-factor-roles", roles: before.roleId },
    ];
    for (const values of intents) {
      const out = await settings(values, u.cookie, viewingAs());
      expect(out.status, values.intent).toBe(403);
      expect(out.thrown).toBe(true);
    }
    const reset = await run(() =>
      userAction(
        args(
          formRequest(`/dashboard/users/${victim.id}`, { intent: "reset-two-factor" }, { cookie: u.cookie }),
          { id: victim.id },
          viewingAs(),
        ),
      ),
    );
    expect(reset.status).toBe(403);
    expect({
      roleId: before.roleId,
      mine: await row(u.id),
      codes: await codes(u.id),
      victim: await row(victim.id),
      policy: await db().selectFrom("two_factor_required_role").selectAll().execute(),
    }).toEqual(before);
  });
});

describe("a super admin resets another account's two-factor", () => {
  function reset(cookie: string, id: string) {
    return run(() =>
      userAction(
        args(formRequest(`/dashboard/users/${id}`, { intent: "reset-two-factor" }, { cookie }), { id }),
      ),
    );
  }

  it("refuses an admin, one's own account and a missing one, with nothing changed", async () => {
    const victim = await signedIn(["user"]);
    await enrol(victim);
    const before = await row(victim.id);
    const admin = await signedIn(["admin"]);
    expect((await reset(admin.cookie, victim.id)).status).toBe(403);
    const manager = await signedIn(["manager"]);
    expect((await reset(manager.cookie, victim.id)).status).toBe(403);
    const root = await signedIn(["super_admin"]);
    await enrol(root);
    const mine = await row(root.id);
    expect((await reset(root.cookie, root.id)).status).toBe(403);
    expect(await row(root.id)).toEqual(mine);
    const nobody = await signedIn(["user"]);
    expect((await reset(root.cookie, nobody.id)).status).toBe(404);
    expect(await row(victim.id)).toEqual(before);
    expect(await audits("user.two_factor.reset", victim.id)).toHaveLength(0);
    expect(mail.fake.messages).toHaveLength(0);
  });

  it("removes it, audits, and tells the account by email", async () => {
    const victim = await signedIn(["user"]);
    await enrol(victim);
    const root = await signedIn(["super_admin"]);
    const out = await reset(root.cookie, victim.id);
    expect(out.status).toBe(302);
    expect(await row(victim.id)).toBeUndefined();
    expect(await codes(victim.id)).toHaveLength(0);
    const rows = await audits("user.two_factor.reset", victim.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor_id).toBe(root.id);
    const sent = mail.fake.messages.filter((m) => m.To === victim.email);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.Subject).toMatch(/two-factor/i);
  });
});

describe("roles that require two-factor", () => {
  it("only a super admin sets them; an unknown role is refused; the change is audited", async () => {
    const roles = await db().selectFrom("role").select(["id", "name"]).execute();
    const guestRole = roles.find((r) => r.name === "manager")!.id;
    const admin = await signedIn(["admin"]);
    const refused = await settings({ intent: "two-factor-roles", roles: guestRole }, admin.cookie);
    expect(refused.status).toBe(403);
    const root = await signedIn(["super_admin"]);
    const unknown = await settings(
      { intent: "two-factor-roles", roles: "7b4f7f6e-6d1c-4c52-9d8f-111111111111" },
      root.cookie,
    );
    expect(unknown.status).toBe(400);
    expect(await db().selectFrom("two_factor_required_role").selectAll().execute()).toEqual([]);
    expect(await twoFactorRequiredFor([guestRole])).toBe(false);

    const ok = await settings({ intent: "two-factor-roles", roles: guestRole }, root.cookie);
    expect(ok.status).toBe(200);
    expect(await twoFactorRequiredFor([guestRole])).toBe(true);
    const entries = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "settings.two_factor_roles")
      .execute();
    expect(entries).toHaveLength(1);

    // A holder's session now says enrolment is due; enrolling clears it.
    const guest = await signedIn(["manager"]);
    const due = await getSessionUser(args(formRequest("/dashboard", {}, { cookie: guest.cookie })));
    expect(due?.twoFactorEnrolmentDue).toBe(true);
    await enrol(guest);
    const after = await getSessionUser(args(formRequest("/dashboard", {}, { cookie: guest.cookie })));
    expect(after?.twoFactorEnrolmentDue).toBe(false);
    await settings({ intent: "two-factor-roles" }, root.cookie);
    expect(await twoFactorRequiredFor([guestRole])).toBe(false);
  });
});
