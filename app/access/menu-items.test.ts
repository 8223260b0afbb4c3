import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { loader as rootLoader } from "../root";
import { action, loader } from "../routes/dashboard.access/route";
import { seed } from "../server/seed.server";
import { invalidateMenu, sidebarFor } from "./menu.server";

// Menu items added (a page the app has, chosen from a list) and hidden or shown again: a hidden
// item stays in the editor and the database, and leaves every sidebar at once.

beforeAll(setupDatabase);

function post(cookie: string | undefined, values: Record<string, string | string[]>) {
  return run(() => action(args(formRequest("/dashboard/access", values, { cookie }))));
}

const rows = () => db().selectFrom("menu_item").selectAll().orderBy("position").execute();
const byUrl = (url: string) =>
  db().selectFrom("menu_item").selectAll().where("url", "=", url).executeTakeFirstOrThrow();

async function sidebarUrls(cookie: string) {
  const root = await run(() => rootLoader(args(request("/dashboard", { cookie }))));
  return (root.body as { sidebar: { url: string }[] }).sidebar.map((s) => s.url);
}

async function audits(action: string) {
  return db().selectFrom("audit_log").selectAll().where("action", "=", action).execute();
}

const tasksItem = {
  intent: "add-menu-item",
  title: "My tasks",
  url: "/dashboard/tasks",
  icon: "Activity",
  requiredPermission: "dashboard.access",
};

describe("adding a menu item", () => {
  it("adds it last, audits it, and every holder of its permission sees it at once", async () => {
    const admin = await signedIn(["admin"]);
    const user = await signedIn(["user"]);
    const before = await rows();
    expect(before.map((r) => r.url)).not.toContain("/dashboard/tasks");
    expect(await sidebarUrls(user.cookie)).not.toContain("/dashboard/tasks");

    const out = await post(admin.cookie, tasksItem);
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard/access?tab=menu");
    const added = await byUrl("/dashboard/tasks");
    expect(added).toMatchObject({
      title: "My tasks",
      icon: "Activity",
      required_permission: "dashboard.access",
      hidden: 0,
      position: Math.max(...before.map((r) => r.position)) + 1,
    });
    expect(await sidebarUrls(user.cookie)).toContain("/dashboard/tasks");
    const [row] = (await audits("menu.create")).filter((a) => a.target_id === added.id);
    expect(row).toMatchObject({ actor_id: admin.id, target_type: "menu_item" });
    expect(JSON.parse(row!.details!)).toMatchObject({
      after: { url: "/dashboard/tasks", title: "My tasks" },
    });
  });

  it.each([
    ["a page the app does not have", "/dashboard/reports"],
    ["another site", "https://evil.example/dashboard"],
    ["a protocol-relative address", "//evil.example"],
    ["a script", "javascript:alert(1)"],
    ["a page with a parameter", "/dashboard/users/:id"],
    ["nothing", ""],
  ])("refuses %s: 400 on the page field, nothing added", async (_, url) => {
    const admin = await signedIn(["admin"]);
    const before = await rows();
    const out = await post(admin.cookie, { ...tasksItem, url, title: "Elsewhere" });
    expect(out.status).toBe(400);
    expect((out.body as { errors: Record<string, string> }).errors.url).toBe("Choose a page from the list.");
    expect(await rows()).toEqual(before);
  });

  it("validates every field with the schema: 400 and nothing added", async () => {
    const admin = await signedIn(["admin"]);
    const before = await rows();
    const out = await post(admin.cookie, {
      intent: "add-menu-item",
      title: " ",
      url: "/dashboard/settings/sso",
      icon: "Skull",
      requiredPermission: "everything",
    });
    expect(out.status).toBe(400);
    expect(Object.keys((out.body as { errors: object }).errors).sort()).toEqual([
      "icon",
      "requiredPermission",
      "title",
    ]);
    expect(await rows()).toEqual(before);
  });

  it("refuses a page another item already leads to (any spelling of it is not on the list)", async () => {
    const admin = await signedIn(["admin"]);
    const before = await rows();
    const out = await post(admin.cookie, { ...tasksItem, url: "/dashboard/users", title: "People" });
    expect(out.status).toBe(400);
    expect((out.body as { errors: Record<string, string> }).errors.url).toBe(
      '"Users" already links to /dashboard/users.',
    );
    const upper = await post(admin.cookie, { ...tasksItem, url: "/DASHBOARD/USERS", title: "People" });
    expect(upper.status).toBe(400);
    expect(await rows()).toEqual(before);
    expect(await audits("menu.create")).toHaveLength(1);
  });

  it("needs roles.manage, as the rest of the editor", async () => {
    const manager = await signedIn(["manager"]);
    const before = await rows();
    const item = { ...tasksItem, url: "/dashboard/settings/sso", title: "SSO" };
    expect((await post(manager.cookie, item)).status).toBe(403);
    expect((await post(undefined, item)).status).toBe(302);
    const [any] = before;
    expect((await post(manager.cookie, { intent: "hide-menu-item", id: any!.id })).status).toBe(403);
    expect((await post(manager.cookie, { intent: "show-menu-item", id: any!.id })).status).toBe(403);
    expect(await rows()).toEqual(before);
  });
});

describe("hiding and showing a menu item", () => {
  it("hides it from every sidebar at once, keeps it in the editor; Show brings it back; each audited", async () => {
    const superAdmin = await signedIn(["super_admin"]);
    const admin = await signedIn(["admin"]);
    const logs = await byUrl("/dashboard/logs");
    expect(await sidebarUrls(superAdmin.cookie)).toContain("/dashboard/logs");

    const hide = await post(admin.cookie, { intent: "hide-menu-item", id: logs.id });
    expect(hide.status).toBe(302);
    expect(hide.headers.get("Location")).toBe("/dashboard/access?tab=menu");
    expect((await byUrl("/dashboard/logs")).hidden).toBe(1);
    expect(await sidebarUrls(superAdmin.cookie)).not.toContain("/dashboard/logs");
    expect(await sidebarUrls(admin.cookie)).not.toContain("/dashboard/logs");
    const page = await run(() => loader(args(request("/dashboard/access", { cookie: admin.cookie }))));
    const menu = (page.body as { menu: { id: string; hidden: number }[] }).menu;
    expect(menu.find((m) => m.id === logs.id)).toMatchObject({ hidden: 1 });
    expect((await audits("menu.hide")).map((a) => a.target_id)).toEqual([logs.id]);

    // Hiding what is hidden changes nothing and writes no second row.
    expect((await post(admin.cookie, { intent: "hide-menu-item", id: logs.id })).status).toBe(302);
    expect(await audits("menu.hide")).toHaveLength(1);

    const show = await post(admin.cookie, { intent: "show-menu-item", id: logs.id });
    expect(show.status).toBe(302);
    expect((await byUrl("/dashboard/logs")).hidden).toBe(0);
    expect(await sidebarUrls(superAdmin.cookie)).toContain("/dashboard/logs");
    expect((await audits("menu.show")).map((a) => a.target_id)).toEqual([logs.id]);
  });

  it("an unknown or malformed id is 404, a missing one too; nothing changes", async () => {
    const admin = await signedIn(["admin"]);
    const before = await rows();
    for (const intent of ["hide-menu-item", "show-menu-item"]) {
      for (const id of [randomUUID(), "not-an-id", ""]) {
        const out = await post(admin.cookie, { intent, id });
        expect(out.status, `${intent} ${id}`).toBe(404);
      }
      expect((await post(admin.cookie, { intent })).status).toBe(404);
    }
    expect(await rows()).toEqual(before);
  });

  it("a hidden item stays hidden through a whole-menu save, a move and the seed", async () => {
    const admin = await signedIn(["admin"]);
    const teams = await byUrl("/dashboard/teams");
    await post(admin.cookie, { intent: "hide-menu-item", id: teams.id });
    expect((await post(admin.cookie, { intent: "move-up", id: teams.id })).status).toBe(302);
    const form: Record<string, string> = { intent: "save-menu" };
    for (const [i, item] of (await rows()).entries()) {
      form[`items[${i}].id`] = item.id;
      form[`items[${i}].title`] = item.id === teams.id ? "Squads" : item.title;
      form[`items[${i}].url`] = item.url;
      form[`items[${i}].icon`] = item.icon;
      form[`items[${i}].requiredPermission`] = item.required_permission;
    }
    expect((await post(admin.cookie, form)).status).toBe(302);
    await seed(db(), { NODE_ENV: "test", SUPER_ADMIN_PASSWORD: "a fine long passphrase" });
    expect(await byUrl("/dashboard/teams")).toMatchObject({ title: "Squads", hidden: 1 });
    expect(await sidebarUrls(admin.cookie)).not.toContain("/dashboard/teams");
    await post(admin.cookie, { intent: "show-menu-item", id: teams.id });
  });

  it("sidebarFor leaves hidden rows out whatever the subject holds", async () => {
    const all = { isSuperAdmin: true, permissions: new Set<string>() };
    const settings = await byUrl("/dashboard/settings");
    await db().updateTable("menu_item").set({ hidden: 1 }).where("id", "=", settings.id).execute();
    await invalidateMenu();
    expect((await sidebarFor(all)).map((s) => s.url)).not.toContain("/dashboard/settings");
    await db().updateTable("menu_item").set({ hidden: 0 }).where("id", "=", settings.id).execute();
    await invalidateMenu();
    expect((await sidebarFor(all)).map((s) => s.url)).toContain("/dashboard/settings");
  });
});

describe("editing an item's page", () => {
  it("only to a page the app has (400 on that field, nothing changed); an address it already had may stay", async () => {
    const admin = await signedIn(["admin"]);
    const teams = await byUrl("/dashboard/teams");
    const edit = (url: string, title = teams.title) => ({
      intent: "update-menu",
      id: teams.id,
      title,
      url,
      icon: teams.icon,
      requiredPermission: teams.required_permission,
    });
    const before = await rows();
    const out = await post(admin.cookie, edit("/dashboard/reports"));
    expect(out.status).toBe(400);
    expect((out.body as { errors: Record<string, string> }).errors.url).toBe("Choose a page from the list.");
    const form: Record<string, string> = { intent: "save-menu" };
    for (const [i, item] of before.entries()) {
      form[`items[${i}].id`] = item.id;
      form[`items[${i}].title`] = item.title;
      form[`items[${i}].url`] = item.id === teams.id ? "/dashboard/reports" : item.url;
      form[`items[${i}].icon`] = item.icon;
      form[`items[${i}].requiredPermission`] = item.required_permission;
    }
    const whole = await post(admin.cookie, form);
    expect(whole.status).toBe(400);
    const at = before.findIndex((r) => r.id === teams.id);
    expect((whole.body as { errors: Record<string, string> }).errors).toEqual({
      [`items[${at}].url`]: "Choose a page from the list.",
    });
    expect(await rows()).toEqual(before);

    // An address from before the list (written behind the app's back here) is kept on a save.
    await db()
      .updateTable("menu_item")
      .set({ url: "/dashboard/legacy" })
      .where("id", "=", teams.id)
      .execute();
    await invalidateMenu();
    expect((await post(admin.cookie, edit("/dashboard/legacy", "Legacy teams"))).status).toBe(302);
    expect(await byUrl("/dashboard/legacy")).toMatchObject({ title: "Legacy teams" });
    expect((await post(admin.cookie, edit("/dashboard/teams", teams.title))).status).toBe(302);
  });
});
