import { beforeAll, describe, expect, it, vi } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { loader as rootLoader } from "../root";
import { action, loader } from "../routes/dashboard.access/route";
import { seed } from "../server/seed.server";
import { invalidateMenu, MENU_VERSION_CHECK_MS } from "./menu.server";
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

  it("deletes a custom role, taking it from its holders in the same transaction; built-in roles never", async () => {
    const admin = await signedIn(["admin"]);
    await post(admin.cookie, { intent: "create-role", name: "temp", label: "Temp", permissions: [] });
    const temp = await role("temp");
    const holder = await signedIn(["temp", "user"]);
    expect((await post(admin.cookie, { intent: "delete-role", roleId: temp.id })).status).toBe(302);
    expect(await db().selectFrom("role").select("id").where("name", "=", "temp").execute()).toEqual([]);
    expect(
      await db().selectFrom("user_role").select("role_id").where("user_id", "=", holder.id).execute(),
    ).toEqual([{ role_id: (await role("user")).id }]);
    const row = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "role.delete")
      .where("target_id", "=", temp.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.details!)).toMatchObject({ removedFrom: [holder.id] });
    const manager = await role("manager");
    expect((await post(admin.cookie, { intent: "delete-role", roleId: manager.id })).status).toBe(403);
  });

  it("nobody deletes a role they hold themselves; nothing changed", async () => {
    const admin = await signedIn(["admin"]);
    await post(admin.cookie, { intent: "create-role", name: "own_role", label: "Own", permissions: [] });
    const own = await role("own_role");
    await db().insertInto("user_role").values({ user_id: admin.id, role_id: own.id }).execute();
    const out = await post(admin.cookie, { intent: "delete-role", roleId: own.id });
    expect(out.status).toBe(403);
    expect((out.body as { formError: string }).formError).toMatch(/yourself/);
    expect(
      await db().selectFrom("user_role").select("user_id").where("role_id", "=", own.id).execute(),
    ).toHaveLength(1);
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
    // The seed runs in another process: nothing in this one is told. The menu version it bumps
    // is read again within MENU_VERSION_CHECK_MS.
    const report = await seed(db(), { NODE_ENV: "test", SUPER_ADMIN_PASSWORD: "a fine long passphrase" });
    expect(report.inserted.menuItems).toEqual(["/dashboard/logs"]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + MENU_VERSION_CHECK_MS);
    const logs = (await sidebar()).find((s) => s.url === "/dashboard/logs");
    vi.useRealTimers();
    expect(logs).toBeTruthy();
    expect((await post(admin.cookie, { intent: "move-up", id: logs!.id })).status).toBe(302);
  });
});

/** The matrix form as the page posts it: roles[i].roleId, roles[i].label, roles[i].permissions. */
function matrix(entries: { roleId: string; label: string; permissions: string[] }[]) {
  const out: Record<string, string | string[]> = { intent: "save-matrix" };
  for (const [i, e] of entries.entries()) {
    out[`roles[${i}].roleId`] = e.roleId;
    out[`roles[${i}].label`] = e.label;
    out[`roles[${i}].permissions`] = e.permissions;
  }
  return out;
}

async function rolesNow(names: string[]) {
  return Promise.all(
    names.map(async (name) => {
      const r = await role(name);
      return { roleId: r.id, label: r.label, permissions: await keysOf(r.id) };
    }),
  );
}

describe("saving the whole role matrix", () => {
  it("previews who gains and loses before a save, writing nothing", async () => {
    const admin = await signedIn(["admin"]);
    const holder = await signedIn(["guest"]);
    const [guest] = await rolesNow(["guest"]);
    const form = {
      ...matrix([{ ...guest!, permissions: [...guest!.permissions, "team.read"] }]),
      intent: "preview-matrix",
    };
    const out = await post(admin.cookie, form);
    expect(out.status).toBe(200);
    const preview = (
      out.body as { preview: { gains: { user: { id: string }; permission: string }[]; losses: [] } }
    ).preview;
    expect(preview.gains).toContainEqual(
      expect.objectContaining({ user: expect.objectContaining({ id: holder.id }), permission: "team.read" }),
    );
    expect(preview.losses).toEqual([]);
    expect(await keysOf(guest!.roleId)).toEqual(guest!.permissions);
    // roles.manage, as the save.
    expect((await post(holder.cookie, form)).status).toBe(403);
  });

  it("applies every changed role in one save, one audit row per changed role, none for unchanged ones", async () => {
    const admin = await signedIn(["admin"]);
    const [guest, user, manager] = await rolesNow(["guest", "user", "manager"]);
    const auditsBefore = await db()
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "role.permissions.update")
      .execute();
    const out = await post(
      admin.cookie,
      matrix([
        { ...guest!, permissions: [...guest!.permissions, "team.read"] },
        { ...user!, permissions: [...user!.permissions, "log.read"], label: "Member" },
        manager!,
      ]),
    );
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    expect(await keysOf(guest!.roleId)).toContain("team.read");
    expect(await keysOf(user!.roleId)).toContain("log.read");
    expect((await role("user")).label).toBe("Member");
    expect(await keysOf(manager!.roleId)).toEqual(manager!.permissions);
    const audits = await db()
      .selectFrom("audit_log")
      .select(["target_id", "details"])
      .where("action", "=", "role.permissions.update")
      .execute();
    const fresh = audits.slice(auditsBefore.length);
    expect(fresh.map((a) => a.target_id).sort()).toEqual([guest!.roleId, user!.roleId].sort());
  });

  it("a single escalation refuses the whole save: 403 and the database unchanged", async () => {
    const admin = await signedIn(["admin"]);
    await post(admin.cookie, {
      intent: "create-role",
      name: "matrix_manager",
      label: "Matrix Manager",
      permissions: ["dashboard.access", "roles.manage", "team.read"],
    });
    for (const name of ["plain_a", "plain_b"])
      await post(admin.cookie, {
        intent: "create-role",
        name,
        label: name,
        permissions: ["dashboard.access"],
      });
    const rm = await signedIn(["matrix_manager"]);
    const [guest, user] = await rolesNow(["plain_a", "plain_b"]);
    const roleRows = await db().selectFrom("role_permission").selectAll().execute();
    const audits = await db().selectFrom("audit_log").select("id").execute();
    const out = await post(
      rm.cookie,
      matrix([
        { ...guest!, permissions: [...guest!.permissions, "team.read"] }, // allowed alone
        { ...user!, permissions: [...user!.permissions, "settings.manage"] }, // not held
      ]),
    );
    expect(out.status).toBe(403);
    expect((out.body as { formError: string }).formError).toMatch(/settings.manage/);
    expect(await db().selectFrom("role_permission").selectAll().execute()).toEqual(roleRows);
    expect(await db().selectFrom("audit_log").select("id").execute()).toHaveLength(audits.length);
  });

  it("an unchanged role the actor may not edit can sit in the form; super_admin can never be sent", async () => {
    const admin = await signedIn(["admin"]);
    const rm = await signedIn(["matrix_manager"]);
    const [adminRole, plain] = await rolesNow(["admin", "plain_a"]);
    const ok = await post(rm.cookie, matrix([adminRole!, { ...plain!, label: "Plain A" }]));
    expect(ok.status, JSON.stringify(ok.body)).toBe(302);
    expect((await role("plain_a")).label).toBe("Plain A");
    const changedAdmin = await post(rm.cookie, matrix([{ ...adminRole!, label: "Guest" }]));
    expect(changedAdmin.status).toBe(403);
    expect((await role("admin")).label).toBe(adminRole!.label);

    const superRole = await role("super_admin");
    const out = await post(
      admin.cookie,
      matrix([{ roleId: superRole.id, label: "Super Admin", permissions: [] }]),
    );
    expect(out.status).toBe(403);
  });

  it("validates the form (400 with conform's reply), refuses an unknown role (404), and needs roles.manage", async () => {
    const admin = await signedIn(["admin"]);
    const [guest] = await rolesNow(["guest"]);
    const bad = await post(admin.cookie, matrix([{ ...guest!, label: "", permissions: ["nope"] }]));
    expect(bad.status).toBe(400);
    expect((bad.body as { submission: { error: Record<string, string[]> } }).submission.error).toHaveProperty(
      "roles[0].label",
    );
    const twice = await post(admin.cookie, matrix([guest!, guest!]));
    expect(twice.status).toBe(400);
    const gone = await post(admin.cookie, matrix([{ ...guest!, roleId: crypto.randomUUID() }]));
    expect(gone.status).toBe(404);
    const manager = await signedIn(["manager"]);
    const before = await keysOf(guest!.roleId);
    const out = await post(manager.cookie, matrix([{ ...guest!, permissions: ["dashboard.access"] }]));
    expect(out.status).toBe(403);
    expect(await keysOf(guest!.roleId)).toEqual(before);
  });

  it("the loader says which roles the actor may edit", async () => {
    const rm = await signedIn(["matrix_manager"]);
    const out = await run(() => loader(args(request("/dashboard/access", { cookie: rm.cookie }))));
    const roles = (out.body as { roles: { name: string; editable: boolean }[] }).roles;
    const editable = Object.fromEntries(roles.map((r) => [r.name, r.editable]));
    expect(editable).toMatchObject({ super_admin: false, admin: false, plain_a: true, matrix_manager: true });
  });
});

/** The menu form as the page posts it, items in the order wanted. */
function menuForm(
  items: { id: string; title: string; url: string; icon: string; required_permission: string }[],
) {
  const out: Record<string, string> = { intent: "save-menu" };
  for (const [i, item] of items.entries()) {
    out[`items[${i}].id`] = item.id;
    out[`items[${i}].title`] = item.title;
    out[`items[${i}].url`] = item.url;
    out[`items[${i}].icon`] = item.icon;
    out[`items[${i}].requiredPermission`] = item.required_permission;
  }
  return out;
}

describe("saving the whole menu in one form", () => {
  const items = () => db().selectFrom("menu_item").selectAll().orderBy("position").execute();

  it("saves fields and order at once; the sidebar follows; one audit row per changed item", async () => {
    const admin = await signedIn(["admin"]);
    const before = await items();
    const [first, second, ...rest] = before;
    const auditsBefore = await db()
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "menu.update")
      .execute();
    const out = await post(admin.cookie, menuForm([{ ...second!, title: "Moved up" }, first!, ...rest]));
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    const after = await items();
    expect(after.map((i) => i.id)).toEqual([second!.id, first!.id, ...rest.map((r) => r.id)]);
    expect(after[0]!.title).toBe("Moved up");
    const root = await run(() => rootLoader(args(request("/dashboard", { cookie: admin.cookie }))));
    expect((root.body as { sidebar: { id: string }[] }).sidebar[0]!.id).toBe(second!.id);
    const audits = await db()
      .selectFrom("audit_log")
      .select("target_id")
      .where("action", "=", "menu.update")
      .execute();
    expect(
      audits
        .slice(auditsBefore.length)
        .map((a) => a.target_id)
        .sort(),
    ).toEqual([first!.id, second!.id].sort());
  });

  it("two items may swap their URLs in one save", async () => {
    const admin = await signedIn(["admin"]);
    const [a, b, ...rest] = await items();
    const out = await post(admin.cookie, menuForm([{ ...a!, url: b!.url }, { ...b!, url: a!.url }, ...rest]));
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    const [a2, b2] = await items();
    expect([a2!.url, b2!.url]).toEqual([b!.url, a!.url]);
    await post(admin.cookie, menuForm([a!, b!, ...rest]));
  });

  it("two items leading to one page: 400 on that item's URL, nothing changed; 404 for an unknown item", async () => {
    const admin = await signedIn(["admin"]);
    const before = await items();
    const [a, b, ...rest] = before;
    const out = await post(admin.cookie, menuForm([a!, { ...b!, url: `${a!.url.toUpperCase()}/` }, ...rest]));
    expect(out.status).toBe(400);
    expect(
      (out.body as { submission: { error: Record<string, string[]> } }).submission.error["items[1].url"]![0],
    ).toMatch(/already links/);
    const gone = await post(admin.cookie, menuForm([{ ...a!, id: crypto.randomUUID() }, b!, ...rest]));
    expect(gone.status).toBe(404);
    expect(await items()).toEqual(before);
  });

  it("an item left out of the form (added meanwhile) keeps its place after the ones sent", async () => {
    const admin = await signedIn(["admin"]);
    const before = await items();
    const [first, ...rest] = before;
    const out = await post(admin.cookie, menuForm(rest));
    expect(out.status).toBe(302);
    expect((await items()).map((i) => i.id)).toEqual([...rest.map((r) => r.id), first!.id]);
    await post(admin.cookie, menuForm(before));
    expect((await items()).map((i) => i.id)).toEqual(before.map((i) => i.id));
  });
});
