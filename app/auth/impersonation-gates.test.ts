import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { createUser, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { db } from "../db.server";

// "View as" an account that still has a gate to pass (a password an admin set, a two-factor
// enrolment its role requires), through the real request pipeline: the gate is the person's, not
// the viewer's, so the view shows the dashboard with its banner, and Stop always works.

let app: AppServer;
const form = { "Content-Type": "application/x-www-form-urlencoded" };

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());

async function superAdmin() {
  const user = await createUser({ roles: ["super_admin"] });
  return { ...user, cookie: await sessionCookieFor(user.id) };
}

function post(path: string, cookie: string, fields: Record<string, string>) {
  return app.fetch(path, {
    method: "POST",
    cookie,
    headers: form,
    body: new URLSearchParams(fields).toString(),
  });
}

async function requireTwoFactorFor(role: string, root: { cookie: string }) {
  const id = (await db().selectFrom("role").select("id").where("name", "=", role).executeTakeFirstOrThrow())
    .id;
  const res = await post("/dashboard/settings/system", root.cookie, {
    intent: "two-factor-roles",
    roles: id,
  });
  expect(res.status).toBe(200);
}

const cases: [string, (root: { cookie: string }) => Promise<string>][] = [
  [
    "a password an admin set (must change it)",
    async () => {
      const target = await createUser({ roles: ["user"] });
      await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", target.id).execute();
      return target.id;
    },
  ],
  [
    "a two-factor enrolment its role requires",
    async (root) => {
      const target = await createUser({ roles: ["manager"] });
      await requireTwoFactorFor("manager", root);
      return target.id;
    },
  ],
];

describe("View as an account with a gate of its own", () => {
  it.each(cases)("%s: no 500, the dashboard with its banner, and Stop works", async (_, makeTarget) => {
    const root = await superAdmin();
    const targetId = await makeTarget(root);
    // The target meets its gate when it signs in itself.
    const own = await app.fetch("/dashboard", { cookie: await sessionCookieFor(targetId) });
    expect(own.status).toBe(302);
    expect(own.headers.get("Location")).toMatch(
      /^\/dashboard\/settings\/security\?(mustChange|twoFactor)=1$/,
    );

    const started = await post(`/dashboard/users/${targetId}`, root.cookie, { intent: "view-as" });
    expect(started.status).toBe(302);
    expect(started.headers.get("Location")).toBe("/dashboard");

    for (const path of [
      "/dashboard",
      "/dashboard/settings/security",
      "/dashboard/settings/profile",
      `/dashboard/users/${targetId}`,
    ]) {
      const page = await app.fetch(path, { cookie: root.cookie });
      const html = await page.text();
      expect(page.status, path).not.toBe(500);
      if (path !== `/dashboard/users/${targetId}`) expect(page.status, path).toBe(200);
      expect(html, path).toContain('data-testid="impersonation-banner"');
      expect(html, path).toContain('action="/impersonation/stop"');
    }
    // The shell's own requests: a 403 here was the browser's 500 (the bell's fetcher threw).
    for (const path of ["/api/notifications", "/api/notifications.data?_routes=routes%2Fapi.notifications"]) {
      const res = await app.fetch(path, { cookie: root.cookie });
      expect(res.status, path).toBe(200);
      await res.body?.cancel();
    }
    const events = await app.fetch("/api/events", { cookie: root.cookie });
    expect(events.status).toBe(200);
    await events.body?.cancel();
    const data = await app.fetch("/dashboard.data?_routes=routes%2Fdashboard-home", { cookie: root.cookie });
    expect(data.status).toBe(200);
    expect(await data.text()).not.toMatch(/mustChange=1|twoFactor=1/);

    const stopped = await post("/impersonation/stop", root.cookie, {});
    expect(stopped.status).toBe(302);
    expect(stopped.headers.get("Location")).toBe(`/dashboard/users/${targetId}`);
    const after = await app.fetch("/dashboard", { cookie: root.cookie });
    expect(after.status).toBe(200);
    expect(await after.text()).not.toContain('data-testid="impersonation-banner"');
    const [row] = await db()
      .selectFrom("audit_log")
      .select(["actor_id", "impersonator_id"])
      .where("action", "=", "impersonation.stop")
      .where("target_id", "=", targetId)
      .execute();
    expect(row).toMatchObject({ actor_id: targetId, impersonator_id: root.id });
  });
});

describe("Stop", () => {
  it("answers even when the viewer's own password was reset meanwhile; their own gate applies after it", async () => {
    const root = await superAdmin();
    const target = await createUser({ roles: ["user"] });
    expect((await post(`/dashboard/users/${target.id}`, root.cookie, { intent: "view-as" })).status).toBe(
      302,
    );
    // Another super admin sets this one's password meanwhile.
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", root.id).execute();
    const cache = await app.module<typeof import("./session-cache.server")>(
      "app/auth/session-cache.server.ts",
    );
    await cache.invalidateSessions();
    const page = await app.fetch("/dashboard", { cookie: root.cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="impersonation-banner"');

    const stopped = await post("/impersonation/stop.data", root.cookie, {});
    expect(stopped.status).not.toBeGreaterThanOrEqual(400);
    expect(await stopped.text()).toContain(`/dashboard/users/${target.id}`);
    const after = await app.fetch("/dashboard", { cookie: root.cookie });
    expect(after.status).toBe(302);
    expect(after.headers.get("Location")).toBe("/dashboard/settings/security?mustChange=1");
  });
});
