import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  args,
  context,
  createUser,
  ORIGIN,
  PASSWORD,
  request,
  run,
  sessionCookieFor,
  signedIn,
} from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import type { IdpUser } from "../../test/support/oidc-idp";
import { expectSquatterLockedOut, registerAsAttacker } from "../../test/support/squatter";
import {
  accounts,
  callback,
  expectRefused,
  idp,
  managerRoleId,
  nextIp,
  root,
  sessionCookieOf,
  setupSso,
  signIn,
  teardownSso,
  throughProvider,
} from "../../test/support/sso";
import { roleGrants } from "../access/role-cache.server";
import { db } from "../db.server";
import { english } from "../i18n/english.server";
import type { Message } from "../i18n/message";
import { loader as startLoader } from "../routes/auth.oidc.$provider";
import { action as settingsAction, loader as settingsLoader } from "../routes/dashboard.settings.sso/route";
import { loader as loginLoader } from "../routes/login/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { decryptSecret } from "../security/secret-box.server";
import { attemptLogin, BAD_CREDENTIALS } from "./login.server";
import { startPasswordReset } from "./password-reset.server";
import { createProvider, passwordBlockedBy } from "./sso-providers.server";
import { createProviderSchema } from "./sso-schema";

// Single sign-on against a real OpenID Connect provider (test/support/sso.ts): signing in,
// refusals, the login page and the providers' settings.

beforeAll(setupSso, 60_000);
afterAll(teardownSso);
beforeEach(() => resetRateLimits());

describe("signing in through the provider", () => {
  it("creates a new account just in time: verified, active, with the provider's role", async () => {
    const out = await signIn({
      sub: "new-1",
      email: "Nina@Corp.test",
      email_verified: true,
      name: "Nina New",
    });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard");
    expect(sessionCookieOf(out)).toBeTruthy();
    expect(out.headers.get("Set-Cookie")).toMatch(/__oidc_flow=;/);
    const user = await db()
      .selectFrom("user")
      .selectAll()
      .where("email", "=", "nina@corp.test")
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({
      name: "Nina New",
      email_verified: 1,
      status: "active",
      password_hash: null,
    });
    const roles = await db()
      .selectFrom("user_role")
      .select("role_id")
      .where("user_id", "=", user.id)
      .execute();
    expect(roles).toEqual([{ role_id: managerRoleId }]);
    const created = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "sso.account.created")
      .execute();
    expect(created.map((r) => r.target_id)).toEqual([user.id]);
    const ok = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "auth.login.succeeded")
      .where("actor_id", "=", user.id)
      .execute();
    expect(ok.map((r) => JSON.parse(r.details!))).toEqual([{ method: "oidc", provider: "corp" }]);

    // The next sign-in of the same subject is the same account, nothing new.
    const before = (await accounts()).users.length;
    const again = await signIn({ sub: "new-1", email: "nina@corp.test", email_verified: true });
    expect(again.status).toBe(302);
    expect((await accounts()).users.length).toBe(before);
  });

  it("keeps the page asked for (same-origin paths only)", async () => {
    const { callback: url, flowCookie } = await throughProvider(
      { sub: "new-2", email: "otto@corp.test", email_verified: true },
      "corp",
      "/dashboard/settings",
    );
    const out = await callback(url, flowCookie);
    expect(out.headers.get("Location")).toBe("/dashboard/settings");
    const evil = await throughProvider(
      { sub: "new-2", email: "otto@corp.test", email_verified: true },
      "corp",
      "https://evil.example/",
    );
    expect((await callback(evil.callback, evil.flowCookie)).headers.get("Location")).toBe("/dashboard");
  });

  it("links an existing account by its verified address, without a new account", async () => {
    const bob = await createUser({ email: "bob@corp.test", roles: ["user"] });
    const before = await accounts();
    const out = await signIn({ sub: "bob-sub", email: "bob@corp.test", email_verified: true });
    expect(out.status).toBe(302);
    expect(sessionCookieOf(out)).toBeTruthy();
    const after = await accounts();
    expect(after.users.length).toBe(before.users.length);
    expect(after.roles).toEqual(before.roles);
    expect(after.links.filter((l) => l.subject === "bob-sub").map((l) => l.user_id)).toEqual([bob.id]);
    const session = after.sessions.filter((s) => !before.sessions.some((b) => b.id === s.id));
    expect(session.map((s) => s.user_id)).toEqual([bob.id]);
    const linked = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "sso.account.linked")
      .execute();
    expect(linked.map((r) => r.target_id)).toEqual([bob.id]);
  });

  it("takes the unproven password, sessions, passkeys and 2FA off an unverified account it links", async () => {
    const pending = await createUser({ email: "squat@corp.test", verified: false });
    // Whoever held the address before (an admin's correction leaves their session) keeps nothing.
    await sessionCookieFor(pending.id);
    const ts = new Date().toISOString();
    await db()
      .insertInto("passkey")
      .values({
        id: crypto.randomUUID(),
        user_id: pending.id,
        credential_id: "squatter-credential",
        public_key: "AAAA",
        counter: 0,
        transports: "internal",
        name: "Squatter's key",
        backed_up: 0,
        created_at: ts,
        last_used_at: null,
      })
      .execute();
    await db()
      .insertInto("user_two_factor")
      .values({ user_id: pending.id, secret: "v1:x", confirmed_at: ts, last_step: null, created_at: ts })
      .execute();
    const oldSessions = await db()
      .selectFrom("session")
      .select("id")
      .where("user_id", "=", pending.id)
      .execute();
    expect(oldSessions).toHaveLength(1);
    const out = await signIn({ sub: "squat-sub", email: "squat@corp.test", email_verified: true });
    expect(out.status).toBe(302);
    const row = await db()
      .selectFrom("user")
      .selectAll()
      .where("id", "=", pending.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ email_verified: 1, password_hash: null });
    const left = await db().selectFrom("session").select("id").where("id", "=", oldSessions[0]!.id).execute();
    expect(left).toEqual([]);
    expect(await db().selectFrom("passkey").select("id").where("user_id", "=", pending.id).execute()).toEqual(
      [],
    );
    expect(
      await db().selectFrom("user_two_factor").select("user_id").where("user_id", "=", pending.id).execute(),
    ).toEqual([]);
  });
});

describe("an address someone registered first (SECURITY-PLAYBOOK §1)", () => {
  it("the provider's first sign-in takes the account over: the registrant's password, session, token and factors are gone", async () => {
    const squatter = await registerAsAttacker("ceo@corp.test");
    const out = await signIn({ sub: "ceo-sub", email: "ceo@corp.test", email_verified: true });
    expect(out.status).toBe(302);
    const links = await db()
      .selectFrom("oidc_identity")
      .select("user_id")
      .where("subject", "=", "ceo-sub")
      .execute();
    expect(links).toEqual([{ user_id: squatter.id }]);
    await expectSquatterLockedOut(squatter, "sso");
  });
});

describe("refusals change no account, link or session", () => {
  it.each([
    [
      "an unverified email",
      { sub: "u-unverified", email: "eve@corp.test", email_verified: false },
      "unverified",
    ],
    ["no email_verified claim", { sub: "u-unclaimed", email: "eve@corp.test" }, "unverified"],
    ["no email at all", { sub: "u-noemail" }, "unverified"],
    [
      "a claim that is not an address",
      { sub: "u-twoats", email: "eve@evil.test@corp.test", email_verified: true },
      "unverified",
    ],
    ["a domain not allowed", { sub: "u-domain", email: "eve@evil.test", email_verified: true }, "domain"],
    [
      "a look-alike domain",
      { sub: "u-lookalike", email: "eve@corp.test.evil.test", email_verified: true },
      "domain",
    ],
  ] as const)("%s", async (_label, user, code) => {
    // The existing account with this address must not be linked either.
    await createUser({ email: `${user.sub}@corp.test` }).catch(() => {});
    const before = await accounts();
    const out = await signIn(user as IdpUser);
    await expectRefused(out, code);
    expect(await accounts()).toEqual(before);
  });

  it("a disabled account stays out, and is not linked", async () => {
    await createUser({ email: "dora@corp.test", status: "disabled" });
    const before = await accounts();
    const out = await signIn({ sub: "dora-sub", email: "dora@corp.test", email_verified: true });
    await expectRefused(out, "disabled");
    expect(await accounts()).toEqual(before);
  });

  it("an account disabled after it was linked stays out", async () => {
    const first = await signIn({ sub: "later-off", email: "lena@corp.test", email_verified: true });
    expect(sessionCookieOf(first)).toBeTruthy();
    await db()
      .updateTable("user")
      .set({ status: "disabled" })
      .where("email", "=", "lena@corp.test")
      .execute();
    const before = await accounts();
    await expectRefused(
      await signIn({ sub: "later-off", email: "lena@corp.test", email_verified: true }),
      "disabled",
    );
    expect(await accounts()).toEqual(before);
  });

  it("another subject with a linked account's address does not take it over", async () => {
    const first = await signIn({ sub: "owner-sub", email: "olga@corp.test", email_verified: true });
    expect(sessionCookieOf(first)).toBeTruthy();
    const before = await accounts();
    await expectRefused(
      await signIn({ sub: "newcomer-sub", email: "olga@corp.test", email_verified: true }),
      "conflict",
    );
    expect(await accounts()).toEqual(before);
  });

  it("a tampered state", async () => {
    const { callback: url, flowCookie } = await throughProvider({
      sub: "t1",
      email: "tina@corp.test",
      email_verified: true,
    });
    const tampered = new URL(url);
    tampered.searchParams.set("state", `${tampered.searchParams.get("state")}x`);
    const before = await accounts();
    await expectRefused(await callback(tampered.toString(), flowCookie), "failed");
    expect(await accounts()).toEqual(before);
  });

  it("a missing state", async () => {
    const { callback: url, flowCookie } = await throughProvider({
      sub: "t2",
      email: "tina@corp.test",
      email_verified: true,
    });
    const stripped = new URL(url);
    stripped.searchParams.delete("state");
    const before = await accounts();
    await expectRefused(await callback(stripped.toString(), flowCookie), "failed");
    expect(await accounts()).toEqual(before);
  });

  it("a callback without the flow cookie, or with a forged one", async () => {
    const { callback: url } = await throughProvider({
      sub: "t3",
      email: "tina@corp.test",
      email_verified: true,
    });
    const before = await accounts();
    await expectRefused(await callback(url, undefined), "expired");
    await expectRefused(await callback(url, "__oidc_flow=forged"), "expired");
    expect(await accounts()).toEqual(before);
  });

  it("another browser's flow cookie (state of a different flow)", async () => {
    const mine = await throughProvider({ sub: "t4", email: "tina@corp.test", email_verified: true });
    const theirs = await throughProvider({ sub: "t5", email: "tom@corp.test", email_verified: true });
    const before = await accounts();
    await expectRefused(await callback(mine.callback, theirs.flowCookie), "failed");
    expect(await accounts()).toEqual(before);
  });

  it("a replayed callback: the flow is single use", async () => {
    const { callback: url, flowCookie } = await throughProvider({
      sub: "r1",
      email: "rita@corp.test",
      email_verified: true,
    });
    const first = await callback(url, flowCookie);
    expect(sessionCookieOf(first)).toBeTruthy();
    const before = await accounts();
    await expectRefused(await callback(url, flowCookie), "expired");
    expect(await accounts()).toEqual(before);
  });

  it("an expired flow", async () => {
    const { callback: url, flowCookie } = await throughProvider({
      sub: "x1",
      email: "xena@corp.test",
      email_verified: true,
    });
    await db()
      .updateTable("oidc_flow")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    const before = await accounts();
    await expectRefused(await callback(url, flowCookie), "expired");
    expect(await accounts()).toEqual(before);
  });

  it("a provider that does not exist", async () => {
    const before = await accounts();
    const start = await run(() => startLoader(args(request("/auth/oidc/nope"), { provider: "nope" })));
    expect(start.headers.get("Location")).toBe("/login?sso=unavailable");
    await expectRefused(
      await callback(`${ORIGIN}/auth/oidc/nope/callback?code=x&state=y`, undefined, "nope"),
      "unavailable",
    );
    expect(await accounts()).toEqual(before);
  });

  it("rate-limits the callback per IP with Retry-After", async () => {
    const ip = "203.0.113.99";
    let last: Awaited<ReturnType<typeof callback>> | undefined;
    for (let i = 0; i < 11; i++)
      last = await callback(`${ORIGIN}/auth/oidc/corp/callback?code=x&state=y`, undefined, "corp", ip);
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});

describe("the login page and the password policy", () => {
  it("lists the providers", async () => {
    const out = await run(() => loginLoader(args(request("/login"))));
    expect(out.body).toEqual({ sso: [{ slug: "corp", name: "Corp" }], passkeys: true, registration: true });
  });

  it("refuses passwords for a domain whose provider turned them off, only after the right password", async () => {
    const origin = { request: request("/dashboard/settings/sso"), context: context() };
    await createProvider(
      root,
      {
        name: "Strict",
        slug: "strict",
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        domains: ["strict.test"],
        roleId: managerRoleId,
        passwordAllowed: false,
      },
      origin,
    );
    expect(await passwordBlockedBy("sam@strict.test")).toEqual({ name: "Strict" });
    expect(await passwordBlockedBy("sam@corp.test")).toBeNull();
    const sam = await createUser({ email: "sam@strict.test", roles: ["user"] });
    const attempt = async (password: string) => {
      const req = formRequest("/login", { email: sam.email, password });
      return attemptLogin({ request: req, context: context(nextIp()) }, sam.email);
    };
    const sessions = await db().selectFrom("session").select("id").execute();
    const wrong = await attempt("not the password at all");
    expect(wrong).toMatchObject({ ok: false, message: BAD_CREDENTIALS });
    const right = await attempt(PASSWORD);
    expect(right).toMatchObject({ ok: false, reason: "sso_required" });
    expect(english((right as { message: Message }).message)).toContain("Sign in with Strict");
    expect(await db().selectFrom("session").select("id").execute()).toEqual(sessions);
    // No reset link for such an address either (the answer stays the same for everyone).
    await startPasswordReset({ request: request("/forgot-password"), context: context() }, sam.email);
    const asked = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "auth.password.reset_requested")
      .execute();
    expect(JSON.parse(asked.at(-1)!.details!)).toMatchObject({ sent: false, ssoOnly: true });
    // Single sign-on itself works for that domain.
    const out = await signIn({ sub: "sam-sub", email: "sam@strict.test", email_verified: true }, "strict");
    expect(sessionCookieOf(out)).toBeTruthy();
  });
});

describe("configuring providers (super admins only)", () => {
  const fields = (extra: Record<string, string> = {}) => ({
    intent: "create-provider",
    name: "Acme",
    slug: "acme",
    issuer: "https://login.acme.example",
    clientId: "acme-client",
    clientSecret: "acme-very-secret-value",
    domains: "acme.example, Acme.org",
    roleId: managerRoleId,
    ...extra,
  });
  const post = (cookie: string, values: Record<string, string>) =>
    run(() => settingsAction(args(formRequest("/dashboard/settings/sso", values, { cookie }))));
  async function config() {
    return Promise.all([
      db().selectFrom("oidc_provider").selectAll().orderBy("id").execute(),
      db().selectFrom("audit_log").select("id").where("action", "like", "sso.provider.%").execute(),
    ]);
  }

  it("a super admin adds, changes and removes a provider; the secret is stored encrypted and never sent", async () => {
    const cookie = await sessionCookieFor(root.id);
    const created = await post(cookie, fields());
    expect(created.status).toBe(200);
    const row = await db()
      .selectFrom("oidc_provider")
      .selectAll()
      .where("slug", "=", "acme")
      .executeTakeFirstOrThrow();
    expect(row.client_secret).not.toContain("acme-very-secret-value");
    expect(decryptSecret(row.client_secret)).toBe("acme-very-secret-value");
    expect(JSON.parse(row.allowed_domains)).toEqual(["acme.example", "acme.org"]);
    expect(row.password_allowed).toBe(0);

    const page = await run(() => settingsLoader(args(request("/dashboard/settings/sso", { cookie }))));
    const text = JSON.stringify(page.body);
    expect(text).toContain("acme-client");
    expect(text).not.toContain("acme-very-secret-value");
    expect(text).not.toContain(row.client_secret);
    expect(text).not.toContain(idp.clientSecret);

    // A blank secret keeps the stored one.
    const updated = await post(cookie, {
      ...fields({ intent: "update-provider", id: row.id, name: "Acme SSO", clientSecret: "" }),
      passwordAllowed: "on",
    });
    expect(updated.status).toBe(200);
    const after = await db()
      .selectFrom("oidc_provider")
      .selectAll()
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ name: "Acme SSO", password_allowed: 1, client_secret: row.client_secret });
    const audits = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "like", "sso.provider.%")
      .execute();
    expect(audits.map((a) => a.action)).toEqual(
      expect.arrayContaining(["sso.provider.create", "sso.provider.update"]),
    );
    expect(audits.every((a) => !a.details?.includes("acme-very-secret-value"))).toBe(true);

    expect((await post(cookie, { intent: "delete-provider", id: row.id })).status).toBe(200);
    expect(await db().selectFrom("oidc_provider").select("id").where("id", "=", row.id).execute()).toEqual(
      [],
    );
  });

  it.each(["admin", "manager", "user"])("%s can neither see nor change providers", async (role) => {
    const { cookie } = await signedIn([role]);
    const before = await config();
    const page = await run(() => settingsLoader(args(request("/dashboard/settings/sso", { cookie }))));
    expect([302, 403]).toContain(page.status);
    for (const values of [fields(), { intent: "delete-provider", id: "whatever" }]) {
      const out = await post(cookie, values);
      expect([302, 403]).toContain(out.status);
    }
    expect(await config()).toEqual(before);
  });

  it.each([
    ["super_admin as the role for new accounts", () => ({ roleId: superAdminRoleId }), 403],
    ["an http issuer that is not loopback", () => ({ issuer: "http://login.acme.example" }), 400],
    ["no domain", () => ({ domains: " , " }), 400],
    ["an issuer that is not a URL", () => ({ issuer: "" }), 400],
    ["an issuer with a query", () => ({ issuer: "https://login.acme.example/?x=1" }), 400],
    ["a bad domain", () => ({ domains: "acme" }), 400],
    ["no client secret", () => ({ clientSecret: "" }), 400],
    ["a taken identifier", () => ({ slug: "corp" }), 400],
    ["an unknown role", () => ({ roleId: "no-such-role" }), 400],
  ] as const)("refuses %s, changing nothing", async (_label, extra, status) => {
    const cookie = await sessionCookieFor(root.id);
    const before = await config();
    const out = await post(cookie, fields(extra()));
    expect(out.status).toBe(status);
    expect(await config()).toEqual(before);
  });
});

it("the form schema answers any typed issuer without throwing (the browser validates with it)", () => {
  for (const issuer of ["", "x", "http://", "https://ok.example"])
    expect(() => createProviderSchema.safeParse({ issuer })).not.toThrow();
});

let superAdminRoleId = "";
beforeAll(async () => {
  superAdminRoleId = [...(await roleGrants()).values()].find((g) => g.all)!.id;
});
