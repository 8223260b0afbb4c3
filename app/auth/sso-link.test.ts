import { generateTOTP } from "@epic-web/totp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, createUser, PASSWORD, request, run } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import {
  type callback,
  idp,
  managerRoleId,
  root,
  sessionCookieOf,
  setupSso,
  signIn,
  teardownSso,
} from "../../test/support/sso";
import { db, now } from "../db.server";
import { english } from "../i18n/english.server";
import { action as linkAction, loader as linkLoader } from "../routes/login.sso-link";
import { resetRateLimits } from "../security/rate-limit.server";
import { encryptSecret } from "../security/secret-box.server";
import { WRONG_PASSWORD } from "./sso-link.server";
import { createProvider } from "./sso-providers.server";

// Linking a provider's identity to a protected account only after its holder proves it
// (sso-link.server.ts), against the test identity provider (test/support/sso.ts).

beforeAll(setupSso, 60_000);
afterAll(teardownSso);
beforeEach(() => resetRateLimits());

describe("a protected account is linked only after its holder proves it", () => {
  beforeAll(async () => {
    await createProvider(
      root,
      {
        name: "Other",
        slug: "other",
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        domains: ["corp.test"],
        roleId: managerRoleId,
        passwordAllowed: true,
      },
      { request: request("/dashboard/settings/sso"), context: context() },
    );
  });
  afterAll(async () => {
    await db().deleteFrom("oidc_provider").where("slug", "=", "other").execute();
  });

  const identitiesOf = (userId: string) =>
    db().selectFrom("oidc_identity").selectAll().where("user_id", "=", userId).execute();
  const sessionsOf = (userId: string) =>
    db().selectFrom("session").select("id").where("user_id", "=", userId).execute();

  /** The callback held the identity: no session, no new link, the browser sent to the proof page. */
  async function expectHeld(out: Awaited<ReturnType<typeof callback>>, userId: string, linksBefore = 0) {
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/login/sso-link");
    expect(sessionCookieOf(out)).toBeUndefined();
    expect(await identitiesOf(userId)).toHaveLength(linksBefore);
    expect(await sessionsOf(userId)).toEqual([]);
    const linkCookie = out.headers
      .get("Set-Cookie")
      ?.split(/,(?=\s*__)/)
      .find((c) => c.trim().startsWith("__sso_link="));
    expect(linkCookie).toBeTruthy();
    return linkCookie!.trim().split(";")[0]!;
  }

  const prove = (cookie: string | undefined, fields: Record<string, string>, ip = "192.0.2.10") =>
    run(() => linkAction(args(formRequest("/login/sso-link", fields, { cookie }), {}, context(ip))));

  it.each([
    ["a super admin", ["super_admin"], "privileged"],
    ["an admin", ["admin"], "privileged"],
    ["a user manager (user.* permissions)", ["manager"], "privileged"],
  ])("%s is not signed in or linked by the provider alone", async (_label, roles, reason) => {
    const who = await createUser({ email: `p-${roles[0]}@corp.test`, roles });
    const out = await signIn({ sub: `p-${roles[0]}`, email: who.email, email_verified: true });
    await expectHeld(out, who.id);
    const held = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "sso.link.required")
      .where("target_id", "=", who.id)
      .execute();
    expect(held.map((r) => JSON.parse(r.details!))).toEqual([
      { provider: "corp", subject: `p-${roles[0]}`, reason },
    ]);
  });

  it("an account with two-factor (TOTP) is not signed in or linked", async () => {
    const who = await createUser({ email: "totp@corp.test", roles: ["user"] });
    await db()
      .insertInto("user_two_factor")
      .values({
        user_id: who.id,
        secret: encryptSecret((await generateTOTP()).secret),
        confirmed_at: now(),
        last_step: null,
        created_at: now(),
      })
      .execute();
    await expectHeld(await signIn({ sub: "totp-sub", email: who.email, email_verified: true }), who.id);
  });

  it("an account linked to provider A is not signed in or linked through provider B", async () => {
    const who = await createUser({ email: "twice@corp.test", roles: ["user"] });
    const first = await signIn({ sub: "twice-a", email: who.email, email_verified: true }, "corp");
    expect(sessionCookieOf(first)).toBeTruthy();
    await db().deleteFrom("session").where("user_id", "=", who.id).execute();
    const out = await signIn({ sub: "twice-b", email: who.email, email_verified: true }, "other");
    await expectHeld(out, who.id, 1);
    expect((await identitiesOf(who.id)).map((i) => i.subject)).toEqual(["twice-a"]);
  });

  it("after the password proves the account the link is made once, and later sign-ins need no proof", async () => {
    const who = await createUser({ email: "proven@corp.test", roles: ["admin"] });
    const cookie = await expectHeld(
      await signIn({ sub: "proven-sub", email: who.email, email_verified: true }),
      who.id,
    );
    const page = await run(() => linkLoader(args(request("/login/sso-link", { cookie }))));
    expect(page.body).toEqual({
      email: who.email,
      provider: "Corp",
      canUsePassword: true,
      canUseCode: false,
    });
    const out = await prove(cookie, { intent: "password", password: PASSWORD });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard");
    expect(sessionCookieOf(out)).toBeTruthy();
    expect(out.headers.get("Set-Cookie")).toMatch(/__sso_link=;/);
    expect((await identitiesOf(who.id)).map((i) => i.subject)).toEqual(["proven-sub"]);
    const linked = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "sso.account.linked")
      .where("target_id", "=", who.id)
      .execute();
    expect(linked.map((r) => JSON.parse(r.details!))).toEqual([
      { provider: "corp", subject: "proven-sub", proof: "password" },
    ]);
    // Single use: the same cookie again finds nothing, and links nothing more.
    const again = await prove(cookie, { intent: "password", password: PASSWORD });
    expect(again.headers.get("Location")).toBe("/login?sso=expired");
    expect(await identitiesOf(who.id)).toHaveLength(1);
    // The next sign-in with the provider goes straight in.
    const later = await signIn({ sub: "proven-sub", email: who.email, email_verified: true });
    expect(later.headers.get("Location")).toBe("/dashboard");
    expect(sessionCookieOf(later)).toBeTruthy();
  });

  it("a two-factor code proves the account too (and counts as the second factor)", async () => {
    const who = await createUser({ email: "coded@corp.test", roles: ["user"] });
    const { secret } = await generateTOTP();
    await db()
      .insertInto("user_two_factor")
      .values({
        user_id: who.id,
        secret: encryptSecret(secret),
        confirmed_at: now(),
        last_step: null,
        created_at: now(),
      })
      .execute();
    const cookie = await expectHeld(
      await signIn({ sub: "coded-sub", email: who.email, email_verified: true }),
      who.id,
    );
    const code = (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;
    const out = await prove(cookie, { intent: "code", code });
    expect(out.headers.get("Location")).toBe("/dashboard");
    expect(sessionCookieOf(out)).toBeTruthy();
    expect(await identitiesOf(who.id)).toHaveLength(1);
  });

  it("a password proof of an account with two-factor still asks for the code before the session", async () => {
    const who = await createUser({ email: "both@corp.test", roles: ["user"] });
    await db()
      .insertInto("user_two_factor")
      .values({
        user_id: who.id,
        secret: encryptSecret((await generateTOTP()).secret),
        confirmed_at: now(),
        last_step: null,
        created_at: now(),
      })
      .execute();
    const cookie = await expectHeld(
      await signIn({ sub: "both-sub", email: who.email, email_verified: true }),
      who.id,
    );
    const out = await prove(cookie, { intent: "password", password: PASSWORD });
    expect(out.headers.get("Location")).toBe("/login/two-factor");
    expect(sessionCookieOf(out)).toBeUndefined();
    expect(await sessionsOf(who.id)).toEqual([]);
  });

  it("a wrong password links nothing and is rate-limited like sign-in", async () => {
    const who = await createUser({ email: "guessed@corp.test", roles: ["super_admin"] });
    const cookie = await expectHeld(
      await signIn({ sub: "guesser-sub", email: who.email, email_verified: true }),
      who.id,
    );
    for (let i = 0; i < 5; i++) {
      const out = await prove(cookie, { intent: "password", password: `wrong guess ${i}` });
      expect(out.status).toBe(400);
      expect(out.body).toMatchObject({ formError: english(WRONG_PASSWORD) });
    }
    const limited = await prove(cookie, { intent: "password", password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await identitiesOf(who.id)).toEqual([]);
    expect(await sessionsOf(who.id)).toEqual([]);
    const failed = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "sso.link.failed")
      .where("target_id", "=", who.id)
      .execute();
    expect(failed.map((r) => JSON.parse(r.details!).reason)).toEqual([
      ...Array(5).fill("wrong_password"),
      "rate_limited",
    ]);
  });

  it("the pending link is bound to the browser and short-lived", async () => {
    const who = await createUser({ email: "bound@corp.test", roles: ["admin"] });
    const cookie = await expectHeld(
      await signIn({ sub: "bound-sub", email: who.email, email_verified: true }),
      who.id,
    );
    for (const other of [undefined, "__sso_link=forged"]) {
      const out = await prove(other, { intent: "password", password: PASSWORD });
      expect(out.headers.get("Location")).toBe("/login?sso=expired");
    }
    const page = await run(() => linkLoader(args(request("/login/sso-link"))));
    expect(page.headers.get("Location")).toBe("/login?sso=expired");
    await db()
      .updateTable("oidc_pending_link")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", who.id)
      .execute();
    const expired = await prove(cookie, { intent: "password", password: PASSWORD });
    expect(expired.headers.get("Location")).toBe("/login?sso=expired");
    expect(await identitiesOf(who.id)).toEqual([]);
    expect(await sessionsOf(who.id)).toEqual([]);
  });

  it("a plain account without privileges or second factor is still linked at once", async () => {
    const who = await createUser({ email: "plain@corp.test", roles: ["user"] });
    const out = await signIn({ sub: "plain-sub", email: who.email, email_verified: true });
    expect(out.headers.get("Location")).toBe("/dashboard");
    expect(await identitiesOf(who.id)).toHaveLength(1);
  });
});
