import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db, now } from "../db.server";
import { action, loader } from "../routes/dashboard-home/route";
import { clearSystemConfigCache, setSystemConfig } from "../system-settings/system-config.server";

beforeAll(setupDatabase);

type Overview = {
  users: { total: number } | null;
  teams: unknown;
  mail: unknown;
  tasks: Record<string, number>;
  chart: { days: string[]; signIns: number[] | null; tasks: number[] };
  recent: unknown[] | null;
};

async function overview(cookie: string) {
  return (await run(() => loader(args(request("/dashboard", { cookie }))))).body as Overview;
}

describe("overview", () => {
  it("scopes cards to what the viewer may see", async () => {
    const plain = await signedIn(["user"]);
    const mine = await overview(plain.cookie);
    expect(mine).toMatchObject({ users: null, teams: null, mail: null, recent: null });
    expect(mine.chart.signIns).toBeNull();
    expect(mine.chart.days).toHaveLength(14);

    const admin = await signedIn(["admin"]);
    const all = await overview(admin.cookie);
    expect(all.users!.total).toBeGreaterThanOrEqual(3);
    expect(all.teams).not.toBeNull();
    expect(all.mail).not.toBeNull();
    expect(all.recent).not.toBeNull();
  });

  it("counts only the viewer's own tasks, per day", async () => {
    const a = await signedIn(["user"]);
    const b = await signedIn(["user"]);
    const ts = now();
    const task = (userId: string, status: "completed" | "failed") => ({
      id: randomUUID(),
      type: "report.generate",
      status,
      user_id: userId,
      payload: null,
      result: null,
      created_at: ts,
      updated_at: ts,
      completed_at: ts,
    });
    await db()
      .insertInto("task")
      .values([task(a.id, "completed"), task(a.id, "failed"), task(b.id, "completed")])
      .execute();
    const mine = await overview(a.cookie);
    expect(mine.tasks).toEqual({ completed: 1, failed: 1 });
    expect(mine.chart.tasks.at(-1)).toBe(2);
  });

  it("needs dashboard.access", async () => {
    const guest = await signedIn(["guest"]);
    expect((await run(() => loader(args(request("/dashboard", { cookie: guest.cookie }))))).status).toBe(403);
  });

  it("speaks to staff: role labels and action labels; the report's demo controls are not the overview's", async () => {
    const plain = await signedIn(["user"]);
    const mine = (await overview(plain.cookie)) as Overview & {
      roles: { name: string; label: string }[];
    };
    expect(mine).not.toHaveProperty("taskDemoControls");
    expect(mine.roles).toEqual([{ name: "user", label: "User", translations: {} }]);

    const admin = await signedIn(["admin"]);
    await db()
      .insertInto("audit_log")
      .values({
        id: randomUUID(),
        action: "auth.login.succeeded",
        actor_id: admin.id,
        actor_email: admin.email,
        created_at: new Date().toISOString(),
      })
      .execute();
    const theirs = (await overview(admin.cookie)) as Overview & {
      roles: string[];
    };
    const recent = theirs.recent as { action: string }[];
    expect(recent.map((r) => r.action)).toContain("Signed in");
    expect(recent.every((r) => !/^[a-z_]+\.[a-z_.]+$/.test(r.action))).toBe(true);

    const superAdmin = await signedIn(["super_admin"]);
    const all = (await overview(superAdmin.cookie)) as Overview & {
      roles: { name: string; label: string }[];
    };
    // A super admin tries the task system out on the task history page (app/tasks/history.test.ts).
    expect(all).not.toHaveProperty("taskDemoControls");
    expect(all.roles).toEqual([{ name: "super_admin", label: "Super Admin", translations: {} }]);
  });
});

describe("setup checklist", () => {
  type Steps = { step: string; done: boolean }[] | null;
  const stepsFor = async (cookie: string) => ((await overview(cookie)) as unknown as { setup: Steps }).setup;
  const mark = (cookie: string, step: string) =>
    run(() => action(args(formRequest("/dashboard?index", { intent: "setup-done", step }, { cookie }))));

  it("guides a super admin only, each step done when the product sees it or it is marked; then it goes", async () => {
    const admin = await signedIn(["admin"]);
    expect(await stepsFor(admin.cookie)).toBeNull();
    const owner = await signedIn(["super_admin"]);
    // Another super admin or admin already exists here (the one above).
    expect(await stepsFor(owner.cookie)).toEqual([
      { step: "mail", done: false },
      { step: "admin", done: true },
      { step: "twoFactor", done: false },
      { step: "sso", done: false },
      { step: "backups", done: false },
    ]);

    // Only a super admin marks; only the steps the product cannot see; every mark audited.
    expect((await mark(admin.cookie, "backups")).status).toBe(403);
    expect((await mark(owner.cookie, "mail")).status).toBe(400);
    expect((await mark(owner.cookie, "backups")).status).toBe(200);
    expect((await mark(owner.cookie, "sso")).status).toBe(200);
    expect((await mark(owner.cookie, "sso")).status).toBe(200);
    const marks = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "setup.step_done")
      .where("actor_id", "=", owner.id)
      .execute();
    expect(marks).toHaveLength(3);

    await setSystemConfig("MAIL_API_KEY", "a-provider-server-token", null);
    await clearSystemConfigCache();
    await db()
      .insertInto("user_two_factor")
      .values({ user_id: owner.id, secret: "x", confirmed_at: now(), last_step: null, created_at: now() })
      .execute();
    expect(await stepsFor(owner.cookie)).toBeNull();
  });
});
