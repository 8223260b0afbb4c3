import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, context, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { invalidateMenu } from "../access/menu.server";
import { invalidateRoles } from "../access/role-cache.server";
import { db, now } from "../db.server";
import { loader as rootLoader } from "../root";
import { loader as dashboardLoader } from "../routes/dashboard";
import { accessGateMiddleware, afterPasswordChange, requirePermission } from "./guard.server";

beforeAll(setupDatabase);

describe("requirePermission on /api routes", () => {
  it("answers 401 without a session", async () => {
    const out = await run(() => requirePermission(args(request("/api/anything")), "user.read"));
    expect(out).toMatchObject({ status: 401, body: { error: "unauthorized" } });
  });

  it.each([
    ["super_admin", 200],
    ["admin", 200],
    ["manager", 200],
    ["user", 403],
    ["guest", 403],
  ])("user.read for %s -> %i", async (role, status) => {
    const { cookie } = await signedIn([role]);
    const out = await run(() => requirePermission(args(request("/api/x", { cookie })), "user.read"));
    expect(out.status).toBe(status);
    if (status === 403) expect(out.body).toEqual({ error: "forbidden", permission: "user.read" });
  });

  it("a page's refusal names the roles that give the permission, in the role order", async () => {
    const { cookie } = await signedIn(["user"]);
    const out = await run(() =>
      requirePermission(args(request("/dashboard/users", { cookie })), "user.read"),
    );
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({
      permission: "user.read",
      roles: ["Super Admin", "Administrator", "Manager"],
    });
  });

  it.each([
    ["admin", 200],
    ["manager", 403],
  ])("settings.manage for %s -> %i", async (role, status) => {
    const { cookie } = await signedIn([role]);
    const out = await run(() => requirePermission(args(request("/api/x", { cookie })), "settings.manage"));
    expect(out.status).toBe(status);
  });

  it("lets super_admin pass a permission added to the code after seeding", async () => {
    const { cookie } = await signedIn(["super_admin"]);
    const later = "reports.export" as never;
    const out = await run(() => requirePermission(args(request("/api/x", { cookie })), later));
    expect(out.status).toBe(200);
    const admin = await signedIn(["admin"]);
    const denied = await run(() =>
      requirePermission(args(request("/api/x", { cookie: admin.cookie })), later),
    );
    expect(denied.status).toBe(403);
  });

  it("refuses an expired session and a disabled user", async () => {
    const { cookie, id } = await signedIn(["admin"]);
    await db()
      .updateTable("session")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", id)
      .execute();
    expect(
      (await run(() => requirePermission(args(request("/api/x", { cookie })), "user.read"))).status,
    ).toBe(401);

    const other = await signedIn(["admin"]);
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", other.id).execute();
    expect(
      (await run(() => requirePermission(args(request("/api/x", { cookie: other.cookie })), "user.read")))
        .status,
    ).toBe(401);
  });

  it("refuses a forged cookie", async () => {
    const out = await run(() =>
      requirePermission(args(request("/api/x", { cookie: "__session=forged.value" })), "user.read"),
    );
    expect(out.status).toBe(401);
  });
});

describe("guard on pages", () => {
  it("redirects to /login with the page to come back to", async () => {
    const out = await run(() => dashboardLoader(args(request("/dashboard?tab=x"))));
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe(`/login?redirectTo=${encodeURIComponent("/dashboard?tab=x")}`);
  });

  it("lets a user with dashboard.access in", async () => {
    const { cookie } = await signedIn(["user"]);
    const out = await run(() => dashboardLoader(args(request("/dashboard", { cookie }))));
    expect(out.status).toBe(200);
  });
});

describe("the access gate (root middleware)", () => {
  const passed = () => Promise.resolve(new Response("passed"));
  /** The gate for one request; `pattern` is the matched route's, as React Router passes it. */
  function gate(pattern: string, path: string, init: Parameters<typeof request>[1] = {}) {
    const req = request(path, init);
    return run(() =>
      accessGateMiddleware(
        { request: req, context: context(), params: {}, pattern } as never,
        passed as never,
      ),
    );
  }
  async function temporaryPassword(roles: string[]) {
    const user = await signedIn(roles);
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", user.id).execute();
    return user;
  }
  const formPost = (cookie: string, body: string) => ({
    method: "POST",
    cookie,
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });

  it("renders 403 for a guest on any dashboard page (the no-access page) and any session API", async () => {
    const { cookie } = await signedIn(["guest"]);
    const page = await gate("/dashboard/logs", "/dashboard/logs", { cookie });
    expect(page.status).toBe(403);
    expect(page.body).toMatchObject({ error: "forbidden", permission: "dashboard.access" });
    const api = await gate("/api/tasks", "/api/tasks", { cookie });
    expect(api).toMatchObject({ status: 403, body: { error: "forbidden", permission: "dashboard.access" } });
  });

  it("asks for a session on gated routes, even when a route would forget to", async () => {
    expect((await gate("/api/events", "/api/events")).body).toEqual({ error: "unauthorized" });
    const page = await gate("/dashboard/users/:id", "/dashboard/users/x");
    expect(page.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });

  it("leaves public pages, logout and signed webhooks alone", async () => {
    const guest = await signedIn(["guest"]);
    for (const pattern of [
      "/",
      "/login",
      "/logout",
      "/api/webhooks/tasks",
      "/api/auth/verify-email",
      "/api/*",
    ])
      expect((await gate(pattern, pattern, { cookie: guest.cookie })).body, pattern).toBe("passed");
  });

  it("with a temporary password: pages redirect to settings, APIs and other actions get 403", async () => {
    const { cookie } = await temporaryPassword(["super_admin"]);
    const page = await gate("/dashboard/users", "/dashboard/users", { cookie });
    expect(page.status).toBe(302);
    // The page asked for rides along: the person goes there once the password is changed.
    expect(page.headers.get("Location")).toBe(
      "/dashboard/settings/security?mustChange=1&redirectTo=%2Fdashboard%2Fusers",
    );
    const home = await gate("/dashboard", "/dashboard", { cookie });
    expect(home.headers.get("Location")).toBe("/dashboard/settings/security?mustChange=1");
    expect(await gate("/api/tasks", "/api/tasks", { cookie })).toMatchObject({
      status: 403,
      body: { error: "password_change_required" },
    });
    const create = await gate(
      "/dashboard/teams",
      "/dashboard/teams",
      formPost(cookie, "intent=create&name=X"),
    );
    expect(create).toMatchObject({ status: 403, body: { error: "password_change_required" } });
    const profile = await gate(
      "/dashboard/settings/profile",
      "/dashboard/settings/profile",
      formPost(cookie, "intent=profile"),
    );
    expect(profile.status).toBe(403);
    // On the password's own page, only the password form.
    const others = await gate(
      "/dashboard/settings/security",
      "/dashboard/settings/security",
      formPost(cookie, "intent=revoke-others"),
    );
    expect(others.status).toBe(403);
  });

  it("with a temporary password: a client navigation keeps the page's own address, not its .data request", async () => {
    const { cookie } = await temporaryPassword(["user"]);
    const req = request("/dashboard/teams.data?q=a&_routes=routes%2Fdashboard.teams", { cookie });
    const out = await run(() =>
      accessGateMiddleware(
        {
          request: req,
          url: new URL("http://localhost:3000/dashboard/teams?q=a"),
          context: context(),
          params: {},
          pattern: "/dashboard/teams",
        } as never,
        passed as never,
      ),
    );
    expect(out.headers.get("Location")).toBe(
      `/dashboard/settings/security?mustChange=1&redirectTo=${encodeURIComponent("/dashboard/teams?q=a")}`,
    );
  });

  it("with a temporary password: the settings page, its password form and logout stay open", async () => {
    const { cookie } = await temporaryPassword(["user"]);
    expect(
      (await gate("/dashboard/settings/security", "/dashboard/settings/security", { cookie })).body,
    ).toBe("passed");
    const change = await gate(
      "/dashboard/settings/security",
      "/dashboard/settings/security",
      formPost(cookie, "intent=password"),
    );
    expect(change.body).toBe("passed");
    expect((await gate("/logout", "/logout", formPost(cookie, ""))).body).toBe("passed");
  });
});

describe("sidebar from the root loader", () => {
  async function sidebarOf(roles: string[]) {
    const { cookie } = await signedIn(roles);
    const out = await run(() => rootLoader(args(request("/dashboard", { cookie }))));
    return (out.body as { sidebar: { title: string }[] }).sidebar.map((i) => i.title);
  }

  it("shows all seven items in order to a super admin", async () => {
    expect(await sidebarOf(["super_admin"])).toEqual([
      "Dashboard",
      "Users",
      "Teams",
      "Access Control",
      "Audit Logs",
      "Settings",
      "Broadcast",
    ]);
  });

  it("filters by permission for each role", async () => {
    expect(await sidebarOf(["user"])).toEqual(["Dashboard", "Settings"]);
    expect(await sidebarOf(["manager"])).toEqual(["Dashboard", "Users", "Teams", "Settings"]);
    expect(await sidebarOf(["guest"])).toEqual([]);
    expect(await sidebarOf(["user", "manager"])).toEqual(["Dashboard", "Users", "Teams", "Settings"]);
  });

  it("shows nothing to a visitor", async () => {
    const out = await run(() => rootLoader(args(request("/login"))));
    expect(out.body).toMatchObject({ user: null, sidebar: [] });
  });

  it("reflects menu and role changes once the caches are invalidated", async () => {
    const ts = now();
    await db()
      .insertInto("menu_item")
      .values({
        id: randomUUID(),
        title: "Reports",
        url: "/dashboard/reports",
        icon: "NoSuchIcon",
        required_permission: "dashboard.access",
        position: 3,
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    invalidateMenu();
    expect(await sidebarOf(["user"])).toEqual(["Dashboard", "Reports", "Settings"]);

    const guest = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "guest")
      .executeTakeFirstOrThrow();
    const perm = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "=", "dashboard.access")
      .executeTakeFirstOrThrow();
    await db().insertInto("role_permission").values({ role_id: guest.id, permission_id: perm.id }).execute();
    invalidateRoles();
    expect(await sidebarOf(["guest"])).toEqual(["Dashboard", "Reports", "Settings"]);
  });
});

describe("afterPasswordChange: where a forced password change ends", () => {
  it("keeps a page of the signed-in area, with its query and hash", () => {
    for (const path of ["/dashboard", "/dashboard/users?status=disabled", "/dashboard/teams/t1#members"])
      expect(afterPasswordChange(path), path).toBe(path);
  });

  it("sends anything else to the dashboard: other hosts, other areas, nothing at all", () => {
    for (const value of [
      undefined,
      null,
      "",
      42,
      "https://evil.example/dashboard",
      "//evil.example/dashboard",
      "/\\evil.example/dashboard",
      "/.//evil.example",
      "javascript:alert(1)",
      "dashboard/users",
      "/dashboardx",
      "/dashboard/../api/tasks",
      "/dashboard/%2e%2e/login",
      "/api/tasks",
      "/login?redirectTo=//evil.example",
      "/logout",
    ])
      expect(afterPasswordChange(value), String(value)).toBe("/dashboard");
  });
});
