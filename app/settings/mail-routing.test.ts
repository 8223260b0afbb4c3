import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, PASSWORD, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { linkIn, TEST_MAIL_KEY, withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { settleDeliveries } from "../mail/deliveries.server";
import { action, loader } from "../routes/dashboard.settings.system/route";
import { action as forgotAction } from "../routes/forgot-password";
import { resetRateLimits } from "../security/rate-limit.server";
import {
  clearSystemConfigCache,
  getSystemConfig,
  setSystemConfig,
} from "../system-settings/system-config.server";

// docs/rules.md, "Mail routing and the audit trail": the settings that decide where account mail
// goes (the provider key and the sender) change only by a super admin who enters their password
// again; every change tells every super admin by email and in the app. An admin pointing mail at
// their own provider account and asking a reset link for the super admin was a takeover.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(async () => {
  resetRateLimits();
  await db().deleteFrom("system_setting").execute();
  await db().deleteFrom("notification").execute();
  clearSystemConfigCache();
});

const ATTACKER_KEY = "attacker-owned-token-0001";
const NEW_KEY = "rotated-server-token-7777";

function submit(values: Record<string, string>, cookie: string, ip?: string) {
  const req = formRequest("/dashboard/settings/system", values, { cookie });
  return run(() => action(args(req, {}, ip ? context(ip) : undefined)));
}

const stored = (key: string) =>
  db().selectFrom("system_setting").selectAll().where("key", "=", key).executeTakeFirst();
const auditsOf = (actor: string, action: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("actor_id", "=", actor)
    .where("action", "=", action as never)
    .execute();
const activeSuperAdmins = () =>
  db()
    .selectFrom("user")
    .innerJoin("user_role", "user_role.user_id", "user.id")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select(["user.id", "user.email"])
    .where("role.name", "=", "super_admin")
    .where("user.status", "=", "active")
    .execute();

describe("mail routing settings: an admin", () => {
  it.each([
    ["MAIL_API_KEY", ATTACKER_KEY],
    ["EMAIL_FROM", "Evil <evil@attacker.test>"],
  ])("is refused %s (403), nothing stored, the refusal audited", async (key, value) => {
    const admin = await signedIn(["admin"]);
    const out = await submit({ intent: "system", [key]: value, currentPassword: PASSWORD }, admin.cookie);
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({ ok: false, formError: expect.stringMatching(/super admin/i) });
    expect(await stored(key)).toBeUndefined();
    const [refusal] = await auditsOf(admin.id, "settings.update.refused");
    expect(refusal).toBeTruthy();
    expect(JSON.parse(refusal!.details ?? "{}")).toMatchObject({ keys: [key] });
    expect(refusal!.details ?? "").not.toContain(ATTACKER_KEY);
    expect(await auditsOf(admin.id, "settings.update")).toEqual([]);
  });

  it("cannot reset a stored mail key or sender either, and a mixed submission changes nothing", async () => {
    await setSystemConfig("MAIL_API_KEY", NEW_KEY, null);
    await setSystemConfig("APP_NAME", "Before", null);
    const admin = await signedIn(["admin"]);
    expect((await submit({ intent: "system", reset: "MAIL_API_KEY" }, admin.cookie)).status).toBe(403);
    expect(await getSystemConfig("MAIL_API_KEY")).toBe(NEW_KEY);
    const mixed = await submit(
      { intent: "system", APP_NAME: "After", EMAIL_FROM: "Evil <evil@attacker.test>" },
      admin.cookie,
    );
    expect(mixed.status).toBe(403);
    expect(await getSystemConfig("APP_NAME")).toBe("Before");
  });

  it("still changes the application name, lengthens the retention, and may resend the sender unchanged", async () => {
    await setSystemConfig("EMAIL_FROM", "Ops <ops@example.test>", null);
    const admin = await signedIn(["admin"]);
    const out = await submit(
      {
        intent: "system",
        APP_NAME: "Acme",
        // Shortening it is a super admin's too (audit-retention.test.ts); lengthening is not.
        AUDIT_RETENTION_DAYS: "400",
        EMAIL_FROM: "Ops <ops@example.test>",
      },
      admin.cookie,
    );
    expect(out.status).toBe(200);
    expect(await getSystemConfig("APP_NAME")).toBe("Acme");
    expect(await auditsOf(admin.id, "settings.update.refused")).toEqual([]);
    // Nothing about mail routing changed, so nobody is told.
    expect(postmark.fake.messages.filter((m) => m.Tag === "settings-changed")).toEqual([]);
  });

  it("sees the mail fields locked, with the reason; a super admin sees them open", async () => {
    const admin = await signedIn(["admin"]);
    const page = await run(() =>
      loader(args(request("/dashboard/settings/system", { cookie: admin.cookie }))),
    );
    const system = page.body as { config: { key: string; locked: boolean }[] };
    const locked = Object.fromEntries(system.config.map((c) => [c.key, c.locked]));
    expect(locked).toEqual({
      MAIL_API_KEY: true,
      EMAIL_FROM: true,
      APP_NAME: false,
      AUDIT_RETENTION_DAYS: false,
      REGISTRATION: false,
      REGISTRATION_ROLE: false,
      SIGN_IN_ALERTS: false,
      PASSWORD_BREACH_CHECK: false,
      SESSION_IDLE_MINUTES: false,
    });
    const root = await signedIn(["super_admin"]);
    const rootPage = await run(() =>
      loader(args(request("/dashboard/settings/system", { cookie: root.cookie }))),
    );
    const rootSystem = rootPage.body as { config: { locked: boolean }[] };
    expect(rootSystem.config.every((c) => !c.locked)).toBe(true);
  });
});

describe("mail routing settings: a super admin", () => {
  it("must enter the password: missing 400, wrong 400 (audited), then 429 like every re-authentication", async () => {
    const root = await signedIn(["super_admin"]);
    const missing = await submit({ intent: "system", MAIL_API_KEY: NEW_KEY }, root.cookie);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errors: { currentPassword: expect.any(String) } });
    for (let i = 0; i < 5; i++) {
      const wrong = await submit(
        { intent: "system", MAIL_API_KEY: NEW_KEY, currentPassword: `wrong-${i}` },
        root.cookie,
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ errors: { currentPassword: expect.any(String) } });
    }
    const limited = await submit(
      { intent: "system", MAIL_API_KEY: NEW_KEY, currentPassword: PASSWORD },
      root.cookie,
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBeTruthy();
    expect(await stored("MAIL_API_KEY")).toBeUndefined();
    expect(await auditsOf(root.id, "account.reauth.failed")).toHaveLength(5);
    expect(await auditsOf(root.id, "account.reauth.rate_limited")).toHaveLength(1);
    expect(await auditsOf(root.id, "settings.update")).toEqual([]);
    expect(postmark.fake.messages).toEqual([]);
  });

  it("changes the key with the password: audited, every super admin told by email, the others in the app too, never the secret", async () => {
    const root = await signedIn(["super_admin"]);
    const other = await signedIn(["super_admin"]);
    const admin = await signedIn(["admin"]);
    const out = await submit(
      {
        intent: "system",
        MAIL_API_KEY: NEW_KEY,
        EMAIL_FROM: "Acme <ops@acme.test>",
        currentPassword: PASSWORD,
      },
      root.cookie,
    );
    expect(out.status).toBe(200);
    expect(await getSystemConfig("MAIL_API_KEY")).toBe(NEW_KEY);
    expect(await getSystemConfig("EMAIL_FROM")).toBe("Acme <ops@acme.test>");
    const [row] = await auditsOf(root.id, "settings.update");
    expect(JSON.parse(row!.details ?? "{}")).toMatchObject({ changedKeys: ["MAIL_API_KEY", "EMAIL_FROM"] });
    expect(row!.details).not.toContain(NEW_KEY);

    const supers = await activeSuperAdmins();
    expect(supers.map((s) => s.id)).toEqual(expect.arrayContaining([root.id, other.id]));
    const notices = postmark.fake.messages.filter((m) => m.Tag === "settings-changed");
    expect(notices.map((m) => m.To).sort()).toEqual(supers.map((s) => s.email).sort());
    for (const mail of notices) {
      // Sent the way mail went before the change: a hostile new key cannot swallow the notice.
      expect(mail.token).toBe(TEST_MAIL_KEY);
      for (const part of [mail.Subject, mail.TextBody, mail.HtmlBody]) expect(part).not.toContain(NEW_KEY);
      expect(mail.TextBody).toContain(root.email);
      expect(mail.TextBody).toMatch(/Mail API key/);
      expect(mail.TextBody).toMatch(/Sender address/);
      expect(linkIn(mail.TextBody, "/dashboard/settings/system")).toBeTruthy();
    }
    // No alarm in the app for one's own change (issue 36); the email above still reaches them.
    const inApp = await db().selectFrom("notification").selectAll().execute();
    expect(inApp.map((n) => n.user_id).sort()).toEqual(
      supers
        .map((s) => s.id)
        .filter((id) => id !== root.id)
        .sort(),
    );
    expect(inApp.map((n) => n.user_id)).toContain(other.id);
    expect(inApp.some((n) => n.user_id === admin.id)).toBe(false);
    for (const n of inApp) {
      expect(`${n.title} ${n.message}`).not.toContain(NEW_KEY);
      expect(n.message).toContain(root.email);
      expect(n.message).toMatch(/Mail API key/);
    }
  });

  it("a reset needs the password too and tells every super admin", async () => {
    await setSystemConfig("EMAIL_FROM", "Ops <ops@example.test>", null);
    const root = await signedIn(["super_admin"]);
    expect((await submit({ intent: "system", reset: "EMAIL_FROM" }, root.cookie)).status).toBe(400);
    expect(await getSystemConfig("EMAIL_FROM")).toBe("Ops <ops@example.test>");
    const out = await submit(
      { intent: "system", reset: "EMAIL_FROM", currentPassword: PASSWORD },
      root.cookie,
    );
    expect(out.status).toBe(200);
    expect(await stored("EMAIL_FROM")).toBeUndefined();
    const supers = await activeSuperAdmins();
    expect(postmark.fake.messages.filter((m) => m.Tag === "settings-changed")).toHaveLength(supers.length);
  });
});

describe("the takeover, end to end at the action level", () => {
  it("an admin cannot route the super admin's reset link to a provider account they own", async () => {
    const admin = await signedIn(["admin"]);
    // 1. Point mail at the attacker's Postmark account (with the admin's own password, for good measure).
    const point = await submit(
      { intent: "system", MAIL_API_KEY: ATTACKER_KEY, currentPassword: PASSWORD },
      admin.cookie,
    );
    expect(point.status).toBe(403);
    // 2. Ask a reset link for the super admin.
    const req = formRequest("/forgot-password", { email: "root@example.test" });
    const asked = await run(() => forgotAction(args(req, {}, context("198.51.100.200"))));
    expect(asked.status).toBe(302);
    await settleDeliveries();
    // 3. The link went out through the operator's provider account, never the attacker's.
    const resets = postmark.fake.messages.filter((m) => m.Tag === "reset-password");
    expect(resets.map((m) => m.To)).toEqual(["root@example.test"]);
    expect(resets[0]!.token).toBe(TEST_MAIL_KEY);
    expect(postmark.fake.messages.some((m) => m.token === ATTACKER_KEY)).toBe(false);
  });
});
