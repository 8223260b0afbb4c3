import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { loader as rootLoader } from "../root";
import { action, loader } from "../routes/dashboard.access";
import { seed } from "../server/seed.server";
import { invalidateMenu } from "./menu.server";
import { invalidateRoles } from "./role-cache.server";

beforeAll(setupDatabase);

function post(cookie: string | undefined, values: Record<string, string | string[]>) {
  const req = formRequest("/dashboard/access", values, { cookie });
  return run(() => action(args(req)));
}

async function role(name: string) {
  return db().selectFrom("role").selectAll().where("name", "=", name).executeTakeFirstOrThrow();
}

async function keysOf(roleId: string) {
  const rows = await db()
    .selectFrom("role_permission")
    .innerJoin("permission", "permission.id", "role_permission.permission_id")
    .select("permission.key")
    .where("role_id", "=", roleId)
    .execute();
  return rows.map((r) => r.key).sort();
}

describe("access control page", () => {
  it("needs roles.manage for the page and every action", async () => {
    const manager = await signedIn(["manager"]);
    expect(
      (await run(() => loader(args(request("/dashboard/access", { cookie: manager.cookie }))))).status,
    ).toBe(403);
    expect((await post(manager.cookie, { intent: "create-role", name: "x_role", label: "X" })).status).toBe(
      403,
    );
    expect((await post(undefined, { intent: "create-role", name: "x_role", label: "X" })).status).toBe(302);
    expect(await db().selectFrom("role").select("id").where("name", "=", "x_role").execute()).toEqual([]);
  });

  it("lists roles with user counts and shows super_admin as all permissions", async () => {
    const admin = await signedIn(["admin"]);
    const out = await run(() => loader(args(request("/dashboard/access", { cookie: admin.cookie }))));
    const roles = (out.body as { roles: { name: string; all: boolean; users: number }[] }).roles;
    expect(roles.find((r) => r.name === "super_admin")).toMatchObject({ all: true });
    expect(roles.find((r) => r.name === "admin")!.users).toBeGreaterThanOrEqual(1);
  });

  it("creates a custom role, validates input and refuses duplicates", async () => {
    const admin = await signedIn(["admin"]);
    expect((await post(admin.cookie, { intent: "create-role", name: "Bad Name!", label: "" })).status).toBe(
      400,
    );
    const ok = await post(admin.cookie, {
      intent: "create-role",
      name: "support",
      label: "Support",
      permissions: ["dashboard.access", "user.read"],
    });
    expect(ok.status).toBe(302);
    const support = await role("support");
    expect(await keysOf(support.id)).toEqual(["dashboard.access", "user.read"]);
    expect(
      (await post(admin.cookie, { intent: "create-role", name: "support", label: "Again" })).status,
    ).toBe(403);
    expect(
      await db().selectFrom("audit_log").select("id").where("action", "=", "role.create").execute(),
    ).toHaveLength(1);
  });

  it("saves a role's permissions, audits before/after, and the holder's sidebar follows", async () => {
    const admin = await signedIn(["admin"]);
    const guest = await role("guest");
    const out = await post(admin.cookie, {
      intent: "update-role",
      roleId: guest.id,
      label: "Visitor",
      permissions: ["dashboard.access", "log.read"],
    });
    expect(out.status).toBe(302);
    expect(await keysOf(guest.id)).toEqual(["dashboard.access", "log.read"]);
    const audit = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "role.permissions.update")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details!)).toMatchObject({
      before: { label: "Guest", permissions: [] },
      after: { label: "Visitor" },
    });

    const visitor = await signedIn(["guest"]);
    const root = await run(() => rootLoader(args(request("/dashboard", { cookie: visitor.cookie }))));
    expect((root.body as { sidebar: { title: string }[] }).sidebar.map((s) => s.title)).toEqual([
      "Dashboard",
      "Audit Logs",
      "Settings",
    ]);
  });

  it("refuses to edit super_admin and to grant what the actor lacks", async () => {
    const superRole = await role("super_admin");
    const admin = await signedIn(["admin"]);
    expect(
      (await post(admin.cookie, { intent: "update-role", roleId: superRole.id, label: "X", permissions: [] }))
        .status,
    ).toBe(403);

    // A role manager without settings.manage cannot hand it out.
    await post(admin.cookie, {
      intent: "create-role",
      name: "role_manager",
      label: "Role Manager",
      permissions: ["dashboard.access", "roles.manage"],
    });
    const rm = await signedIn(["role_manager"]);
    const user = await role("user");
    const out = await post(rm.cookie, {
      intent: "update-role",
      roleId: user.id,
      label: "User",
      permissions: ["dashboard.access", "settings.manage"],
    });
    expect(out.status).toBe(403);
    expect(await keysOf(user.id)).toEqual(["dashboard.access"]);
  });

  it("deletes custom roles only when nobody holds them; built-in roles never", async () => {
    const admin = await signedIn(["admin"]);
    await post(admin.cookie, { intent: "create-role", name: "temp", label: "Temp", permissions: [] });
    const temp = await role("temp");
    const holder = await signedIn(["temp"]);
    const refusedOut = await post(admin.cookie, { intent: "delete-role", roleId: temp.id });
    expect(refusedOut.status).toBe(403);
    expect((refusedOut.body as { formError: string }).formError).toMatch(/held by 1 user/);
    await db().deleteFrom("user_role").where("user_id", "=", holder.id).execute();
    expect((await post(admin.cookie, { intent: "delete-role", roleId: temp.id })).status).toBe(302);
    expect(await db().selectFrom("role").select("id").where("name", "=", "temp").execute()).toEqual([]);
    const manager = await role("manager");
    expect((await post(admin.cookie, { intent: "delete-role", roleId: manager.id })).status).toBe(403);
  });

  it("edits and reorders menu items; the sidebar changes at once", async () => {
    const admin = await signedIn(["admin"]);
    const teams = await db()
      .selectFrom("menu_item")
      .selectAll()
      .where("url", "=", "/dashboard/teams")
      .executeTakeFirstOrThrow();
    const bad = await post(admin.cookie, {
      intent: "update-menu",
      id: teams.id,
      title: "",
      url: "https://evil.example",
      icon: "Nope",
      requiredPermission: "nope",
    });
    expect(bad.status).toBe(400);
    expect(Object.keys((bad.body as { errors: object }).errors).sort()).toEqual([
      "icon",
      "requiredPermission",
      "title",
      "url",
    ]);

    const ok = await post(admin.cookie, {
      intent: "update-menu",
      id: teams.id,
      title: "Squads",
      url: "/dashboard/teams",
      icon: "Building2",
      requiredPermission: "team.read",
    });
    expect(ok.status).toBe(302);
    expect((await post(admin.cookie, { intent: "move-up", id: teams.id })).status).toBe(302);
    const root = await run(() => rootLoader(args(request("/dashboard", { cookie: admin.cookie }))));
    const titles = (root.body as { sidebar: { title: string; icon: string }[] }).sidebar;
    expect(titles.slice(0, 3).map((s) => s.title)).toEqual(["Dashboard", "Squads", "Users"]);
    expect(titles[1]!.icon).toBe("Building2");
  });

  it("a role manager cannot relabel a role that holds more than they do; nothing changed", async () => {
    const ts = new Date().toISOString();
    const limited = await db()
      .insertInto("role")
      .values({
        id: crypto.randomUUID(),
        name: "role_keeper",
        label: "Role keeper",
        created_at: ts,
        updated_at: ts,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const perms = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "in", ["dashboard.access", "roles.manage"])
      .execute();
    await db()
      .insertInto("role_permission")
      .values(perms.map((p) => ({ role_id: limited.id, permission_id: p.id })))
      .execute();
    await invalidateRoles();
    const keeper = await signedIn(["role_keeper"]);
    const admin = await role("admin");
    const before = await keysOf(admin.id);
    const out = await post(keeper.cookie, {
      intent: "update-role",
      roleId: admin.id,
      label: "Guest",
      permissions: before,
    });
    expect(out.status).toBe(403);
    expect((await role("admin")).label).toBe("Administrator");
    expect(await keysOf(admin.id)).toEqual(before);
    // A role holding no more than they do stays editable.
    const small = await db()
      .insertInto("role")
      .values({ id: crypto.randomUUID(), name: "small_role", label: "Small", created_at: ts, updated_at: ts })
      .returning("id")
      .executeTakeFirstOrThrow();
    await invalidateRoles();
    const own = await post(keeper.cookie, { intent: "update-role", roleId: small.id, label: "Smaller" });
    expect(own.status, JSON.stringify(own.body)).toBe(302);
    expect((await role("small_role")).label).toBe("Smaller");
  });

  it.each([
    ["the same", (u: string) => u],
    ["an upper-case", (u: string) => u.toUpperCase()],
    ["a trailing-slash", (u: string) => `${u}/`],
    ["a doubled-slash", (u: string) => u.replace("/", "//")],
  ])(
    "a menu item saved with %s form of another item's URL gets a field error; nothing changed",
    async (_, variant) => {
      const admin = await signedIn(["admin"]);
      const items = await db().selectFrom("menu_item").selectAll().orderBy("position").execute();
      const [first, second] = [items[0]!, items[1]!];
      const out = await post(admin.cookie, {
        intent: "update-menu",
        id: second.id,
        title: second.title,
        url: variant(first.url),
        icon: second.icon,
        requiredPermission: second.required_permission,
      });
      expect(out.status).toBe(400);
      expect((out.body as { intent: string }).intent).toBe(`menu:${second.id}`);
      expect((out.body as { errors: Record<string, string> }).errors.url).toMatch(/already/);
      expect(await db().selectFrom("menu_item").selectAll().orderBy("position").execute()).toEqual(items);
    },
  );

  it("a menu row the seed adds while the server runs shows up and can be moved", async () => {
    const admin = await signedIn(["admin"]);
    await db().deleteFrom("menu_item").where("url", "=", "/dashboard/logs").execute();
    await invalidateMenu();
    const sidebar = async () => {
      const root = await run(() => rootLoader(args(request("/dashboard", { cookie: admin.cookie }))));
      return (root.body as { sidebar: { id: string; url: string }[] }).sidebar;
    };
    expect((await sidebar()).map((s) => s.url)).not.toContain("/dashboard/logs");
    // The seed runs in another process: nothing in this one is told.
    const report = await seed(db(), { NODE_ENV: "test", SUPER_ADMIN_PASSWORD: "a fine long passphrase" });
    expect(report.inserted.menuItems).toEqual(["/dashboard/logs"]);
    const logs = (await sidebar()).find((s) => s.url === "/dashboard/logs");
    expect(logs).toBeTruthy();
    expect((await post(admin.cookie, { intent: "move-up", id: logs!.id })).status).toBe(302);
  });
});
