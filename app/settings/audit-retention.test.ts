import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, PASSWORD, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { action, loader } from "../routes/dashboard.settings.system/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { purgeAuditPastRetention } from "../server/cleanup.server";
import {
  clearSystemConfigCache,
  getSystemConfig,
  setSystemConfig,
} from "../system-settings/system-config.server";

// docs/rules.md, "Mail routing and the audit trail": an admin who shortened the audit retention to
// one day let the daily cleanup erase the trail of what they did, their refused attempt on the mail
// settings included. Shortening it is a super admin's, with the password, and tells every super
// admin; lengthening it stays open to admins.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(async () => {
  resetRateLimits();
  await db().deleteFrom("system_setting").execute();
  await db().deleteFrom("notification").execute();
  clearSystemConfigCache();
});

function submit(values: Record<string, string>, cookie: string) {
  const req = formRequest("/dashboard/settings/system", values, { cookie });
  return run(() => action(args(req)));
}

const auditsOf = (actor: string, action: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("actor_id", "=", actor)
    .where("action", "=", action as never)
    .execute();
const stored = () =>
  db().selectFrom("system_setting").selectAll().where("key", "=", "AUDIT_RETENTION_DAYS").executeTakeFirst();
const settingsNotices = () => postmark.fake.messages.filter((m) => m.Tag === "settings-changed");

describe("audit retention: an admin", () => {
  it("is refused shortening it (403), nothing stored, the refusal audited and kept by the cleanup", async () => {
    const admin = await signedIn(["admin"]);
    const out = await submit(
      { intent: "system", AUDIT_RETENTION_DAYS: "1", currentPassword: PASSWORD },
      admin.cookie,
    );
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({ ok: false, formError: expect.stringMatching(/super admin/i) });
    expect(await stored()).toBeUndefined();
    expect(await getSystemConfig("AUDIT_RETENTION_DAYS")).toBe("365");
    const [refusal] = await auditsOf(admin.id, "settings.update.refused");
    expect(JSON.parse(refusal!.details ?? "{}")).toMatchObject({ keys: ["AUDIT_RETENTION_DAYS"] });
    expect(await auditsOf(admin.id, "settings.update")).toEqual([]);
    // Tomorrow's cleanup still keeps a day-old refusal.
    await purgeAuditPastRetention(new Date(Date.now() + 2 * 86_400_000));
    expect(await auditsOf(admin.id, "settings.update.refused")).toHaveLength(1);
    expect(settingsNotices()).toEqual([]);
  });

  it("is refused shortening it by one day, or by a reset to a shorter fallback", async () => {
    await setSystemConfig("AUDIT_RETENTION_DAYS", "3650", null);
    const admin = await signedIn(["admin"]);
    expect((await submit({ intent: "system", AUDIT_RETENTION_DAYS: "3649" }, admin.cookie)).status).toBe(403);
    expect((await submit({ intent: "system", reset: "AUDIT_RETENTION_DAYS" }, admin.cookie)).status).toBe(
      403,
    );
    expect(await getSystemConfig("AUDIT_RETENTION_DAYS")).toBe("3650");
    expect(await auditsOf(admin.id, "settings.update.refused")).toHaveLength(2);
  });

  it("may lengthen it, without a password and without telling anyone", async () => {
    const admin = await signedIn(["admin"]);
    const out = await submit({ intent: "system", AUDIT_RETENTION_DAYS: "730" }, admin.cookie);
    expect(out.status).toBe(200);
    expect(await getSystemConfig("AUDIT_RETENTION_DAYS")).toBe("730");
    expect(await auditsOf(admin.id, "settings.update")).toHaveLength(1);
    expect(await db().selectFrom("notification").selectAll().execute()).toEqual([]);
    expect(settingsNotices()).toEqual([]);
  });

  it("sees the field open, with why shortening it is a super admin's", async () => {
    const admin = await signedIn(["admin"]);
    const page = await run(() =>
      loader(args(request("/dashboard/settings/system", { cookie: admin.cookie }))),
    );
    type View = { key: string; locked: boolean; restriction: string | null };
    const config = (page.body as { config: View[] }).config;
    const retention = config.find((c) => c.key === "AUDIT_RETENTION_DAYS")!;
    expect(retention).toMatchObject({ locked: false, restriction: "audit_trail" });
    expect(config.find((c) => c.key === "MAIL_API_KEY")).toMatchObject({
      locked: true,
      restriction: "mail_routing",
    });
    expect(config.find((c) => c.key === "APP_NAME")).toMatchObject({ locked: false, restriction: null });
  });
});

describe("audit retention: a super admin", () => {
  it("shortens it only with the password; every super admin is told", async () => {
    const root = await signedIn(["super_admin"]);
    const missing = await submit({ intent: "system", AUDIT_RETENTION_DAYS: "30" }, root.cookie);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errors: { currentPassword: expect.any(String) } });
    expect(await stored()).toBeUndefined();

    const out = await submit(
      { intent: "system", AUDIT_RETENTION_DAYS: "30", currentPassword: PASSWORD },
      root.cookie,
    );
    expect(out.status).toBe(200);
    expect(await getSystemConfig("AUDIT_RETENTION_DAYS")).toBe("30");
    const [row] = await auditsOf(root.id, "settings.update");
    expect(JSON.parse(row!.details ?? "{}")).toMatchObject({
      changedKeys: ["AUDIT_RETENTION_DAYS"],
      reauthenticated: true,
    });
    const supers = await db()
      .selectFrom("user")
      .innerJoin("user_role", "user_role.user_id", "user.id")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select(["user.id", "user.email"])
      .where("role.name", "=", "super_admin")
      .where("user.status", "=", "active")
      .execute();
    expect(
      settingsNotices()
        .map((m) => m.To)
        .sort(),
    ).toEqual(supers.map((s) => s.email).sort());
    // In the app, only the other super admins: no alarm about one's own change.
    const inApp = await db().selectFrom("notification").selectAll().execute();
    expect(inApp.map((n) => n.user_id).sort()).toEqual(
      supers
        .map((s) => s.id)
        .filter((id) => id !== root.id)
        .sort(),
    );
    for (const n of inApp) {
      expect(n.message).toContain(root.email);
      expect(n.message).toMatch(/Audit log retention/);
      expect(n.message).toMatch(/365.*30/);
    }
  });
});
