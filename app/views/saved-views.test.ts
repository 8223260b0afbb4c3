import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { roleGrants } from "../access/role-cache.server";
import { db } from "../db.server";
import { action, loader } from "../routes/api.views";
import { loader as logsLoader } from "../routes/dashboard.logs/route";
import { loader as usersLoader } from "../routes/dashboard.users/route";
import { normaliseQuery } from "./saved-views.server";
import { MAX_VIEWS_PER_PERSON, type SavedViewItem } from "./view-schemas";

// Saved views (docs/decisions/039-saved-views.md) through GET/POST /api/views and the list pages.

beforeAll(setupDatabase);

const post = (cookie: string | undefined, fields: Record<string, string>) =>
  run(() => action(args(formRequest("/api/views", fields, { cookie }))));
const save = (cookie: string, fields: Record<string, string>) =>
  post(cookie, { intent: "view-create", list: "users", ...fields });
const listed = async (cookie: string) =>
  ((await run(() => loader(args(request("/api/views", { cookie }))))).body as { views: SavedViewItem[] })
    .views;
const roleId = async (name: string) => [...(await roleGrants()).values()].find((r) => r.name === name)!.id;
const stored = (id: string) =>
  db().selectFrom("saved_view").selectAll().where("id", "=", id).executeTakeFirst();

describe("saving a view", () => {
  it("keeps the list's query normalised by the list's own schema, owned by the session's user", async () => {
    const manager = await signedIn(["manager"]);
    const out = await save(manager.cookie, {
      name: "  Disabled by name  ",
      query: "?after=abc&q=%20ann%20&status=disabled&sort=name&dir=desc&size=25&bogus=1&verified=maybe",
      // Ignored: the owner is always the caller.
      ownerId: randomUUID(),
    });
    expect(out.status).toBe(200);
    const view = (out.body as { view: SavedViewItem }).view;
    expect(view).toMatchObject({
      name: "Disabled by name",
      query: "q=ann&status=disabled&sort=name",
      url: "/dashboard/users?q=ann&status=disabled&sort=name",
      sharedWith: null,
      mine: true,
      manageable: true,
    });
    expect(await stored(view.id)).toMatchObject({
      owner_id: manager.id,
      list: "users",
      query: "q=ann&status=disabled&sort=name",
      shared_role_id: null,
    });
    expect((await listed(manager.cookie)).map((v) => v.id)).toEqual([view.id]);
  });

  it("normalises the audit log's filters, and refuses what the log itself refuses", async () => {
    expect(normaliseQuery("audit", "?actor=%20bob%20&size=50&from=2026-01-02&before=x")).toBe(
      "actor=bob&from=2026-01-02",
    );
    expect(normaliseQuery("users", "")).toBe("");
    expect(normaliseQuery("users", "sort=created_at&dir=desc&size=25")).toBe("");
    // A key no list reads that names prototype machinery is refused, not stripped (issue 34).
    for (const query of ["__proto__[polluted]=yes", "q=a&constructor.prototype.polluted=1", "prototype=x"])
      expect(() => normaliseQuery("users", query), query).toThrow(/cannot be saved/);
    const admin = await signedIn(["admin"]);
    const bad = await post(admin.cookie, {
      intent: "view-create",
      list: "audit",
      name: "Bad day",
      query: "from=2026-02-30",
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: Record<string, string> }).errors.query).toMatch(/cannot be saved/);
  });

  it("refuses an empty, too long, NUL-bearing or duplicate name with the field's message", async () => {
    const manager = await signedIn(["manager"]);
    for (const name of ["", "   ", "x".repeat(81), "two\nlines"]) {
      const out = await save(manager.cookie, { name, query: "" });
      expect(out.status, JSON.stringify(name)).toBe(400);
      expect(out.body, JSON.stringify(name)).toMatchObject({ errors: { name: expect.any(String) } });
    }
    // NUL anywhere in a form is refused before any field is read (app/http/read-form.server.ts).
    for (const fields of [{ name: "a\u0000b" }, { name: "Fine", query: "q=a\u0000" }]) {
      const out = await save(manager.cookie, { query: "", ...fields });
      expect(out.status).toBe(400);
      expect(out.body).toMatchObject({ message: expect.stringMatching(/NUL/) });
    }
    expect(
      await db().selectFrom("saved_view").select("id").where("owner_id", "=", manager.id).execute(),
    ).toEqual([]);
    expect((await save(manager.cookie, { name: "x".repeat(80), query: "" })).status).toBe(200);
    expect((await save(manager.cookie, { name: "Mine", query: "q=a" })).status).toBe(200);
    const again = await save(manager.cookie, { name: " Mine ", query: "q=b" });
    expect(again.status).toBe(400);
    expect((again.body as { errors: Record<string, string> }).errors.name).toBe(
      'You already have a view named "Mine" on this list.',
    );
    // Another list, or another person, may use the same name.
    const other = await signedIn(["manager"]);
    expect((await save(other.cookie, { name: "Mine", query: "" })).status).toBe(200);
    const rows = await db().selectFrom("saved_view").select("id").where("name", "=", "Mine").execute();
    expect(rows).toHaveLength(2);
  });

  it("needs the list's read permission, and sharing needs roles.manage", async () => {
    const plain = await signedIn(["user"]);
    expect((await save(plain.cookie, { name: "Nope", query: "" })).status).toBe(403);
    const manager = await signedIn(["manager"]);
    // A manager reads users but not the audit log.
    expect(
      (await post(manager.cookie, { intent: "view-create", list: "audit", name: "Log", query: "" })).status,
    ).toBe(403);
    const shared = await save(manager.cookie, {
      name: "Shared try",
      query: "",
      sharedRoleId: await roleId("manager"),
    });
    expect(shared.status).toBe(403);
    expect((shared.body as { formError: string }).formError).toMatch(/manages roles/);
    const admin = await signedIn(["admin"]);
    expect(
      (await save(admin.cookie, { name: "No such role", query: "", sharedRoleId: randomUUID() })).status,
    ).toBe(400);
    expect(
      await db()
        .selectFrom("saved_view")
        .select("id")
        .where("owner_id", "in", [plain.id, manager.id])
        .execute(),
    ).toEqual([]);
    expect((await post(undefined, { intent: "view-create", list: "users", name: "X" })).status).toBe(401);
  });

  it("keeps at most MAX_VIEWS_PER_PERSON views per person", async () => {
    const manager = await signedIn(["manager"]);
    const ts = new Date().toISOString();
    await db()
      .insertInto("saved_view")
      .values(
        Array.from({ length: MAX_VIEWS_PER_PERSON }, (_, i) => ({
          id: randomUUID(),
          owner_id: manager.id,
          list: "users" as const,
          name: `View ${i}`,
          query: "",
          shared_role_id: null,
          created_at: ts,
          updated_at: ts,
        })),
      )
      .execute();
    const out = await save(manager.cookie, { name: "One more", query: "" });
    expect(out.status).toBe(403);
    expect((out.body as { formError: string }).formError).toMatch(/50 saved views/);
  });
});

describe("shared views", () => {
  it("are seen by holders of the role who can read the list, and by nobody else", async () => {
    const admin = await signedIn(["admin"]);
    const made = await save(admin.cookie, {
      name: "Team leads",
      query: "role=manager",
      sharedRoleId: await roleId("user"),
    });
    expect(made.status).toBe(200);
    const view = (made.body as { view: SavedViewItem }).view;
    expect(view.sharedWith?.name).toBe("user");
    const audit = await db()
      .selectFrom("audit_log")
      .select(["actor_id", "target_id"])
      .where("action", "=", "view.shared.create")
      .where("target_id", "=", view.id)
      .execute();
    expect(audit).toEqual([{ actor_id: admin.id, target_id: view.id }]);

    // Holds the role and reads users: sees it, may not change it.
    const reader = await signedIn(["user", "manager"]);
    const seen = (await listed(reader.cookie)).find((v) => v.id === view.id);
    expect(seen).toMatchObject({ mine: false, manageable: false, sharedWith: { name: "user" } });
    // Holds the role, cannot read users: never sees it.
    const plain = await signedIn(["user"]);
    expect((await listed(plain.cookie)).map((v) => v.id)).not.toContain(view.id);
    // Reads users, does not hold the role: never sees it.
    const manager = await signedIn(["manager"]);
    expect((await listed(manager.cookie)).map((v) => v.id)).not.toContain(view.id);

    // The list page offers it to the reader, and marks it open when the address matches.
    const page = await run(() =>
      usersLoader(args(request("/dashboard/users?role=manager&sort=created_at", { cookie: reader.cookie }))),
    );
    const views = (page.body as { savedViews: { views: SavedViewItem[]; current: string } }).savedViews;
    expect(views.views.map((v) => v.id)).toContain(view.id);
    expect(views.current).toBe("role=manager");
  });

  it("are renamed and deleted only by their owner or whoever manages roles; others get 404", async () => {
    const admin = await signedIn(["admin"]);
    const view = (
      (await save(admin.cookie, { name: "Shared", query: "", sharedRoleId: await roleId("manager") }))
        .body as { view: SavedViewItem }
    ).view;
    const holder = await signedIn(["manager"]);
    expect((await post(holder.cookie, { intent: "view-rename", id: view.id, name: "Mine now" })).status).toBe(
      404,
    );
    expect((await post(holder.cookie, { intent: "view-delete", id: view.id })).status).toBe(404);
    const otherAdmin = await signedIn(["admin"]);
    expect(
      (await post(otherAdmin.cookie, { intent: "view-rename", id: view.id, name: "Renamed" })).status,
    ).toBe(200);
    expect((await stored(view.id))?.name).toBe("Renamed");
    expect((await post(otherAdmin.cookie, { intent: "view-delete", id: view.id })).status).toBe(200);
    expect(await stored(view.id)).toBeUndefined();
    const actions = await db()
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "=", view.id)
      .orderBy("created_at")
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      "view.shared.create",
      "view.shared.rename",
      "view.shared.delete",
    ]);
  });

  it("a deleted role leaves the view with its owner", async () => {
    const admin = await signedIn(["admin"]);
    const id = randomUUID();
    const ts = new Date().toISOString();
    await db()
      .insertInto("role")
      .values({ id, name: `temp_${id.slice(0, 6)}`, label: "Temp", created_at: ts, updated_at: ts })
      .execute();
    const { invalidateRoles } = await import("../access/role-cache.server");
    await invalidateRoles();
    const view = (
      (await save(admin.cookie, { name: "Temp view", query: "", sharedRoleId: id })).body as {
        view: SavedViewItem;
      }
    ).view;
    await db().deleteFrom("role").where("id", "=", id).execute();
    await invalidateRoles();
    expect((await stored(view.id))?.shared_role_id).toBeNull();
  });
});

describe("personal views", () => {
  it("cannot be seen, renamed or deleted by anyone else, whatever id they send", async () => {
    const owner = await signedIn(["admin"]);
    const view = (
      (await save(owner.cookie, { name: "Private", query: "q=x" })).body as { view: SavedViewItem }
    ).view;
    const other = await signedIn(["admin"]);
    expect((await listed(other.cookie)).map((v) => v.id)).not.toContain(view.id);
    expect((await post(other.cookie, { intent: "view-rename", id: view.id, name: "Taken" })).status).toBe(
      404,
    );
    expect((await post(other.cookie, { intent: "view-delete", id: view.id })).status).toBe(404);
    expect((await post(other.cookie, { intent: "view-delete", id: "not-a-uuid" })).status).toBe(400);
    expect((await stored(view.id))?.name).toBe("Private");
    // Personal views write no audit row.
    expect(
      await db().selectFrom("audit_log").select("id").where("target_id", "=", view.id).execute(),
    ).toEqual([]);

    expect(
      (await post(owner.cookie, { intent: "view-rename", id: view.id, name: "x".repeat(81) })).status,
    ).toBe(400);
    await save(owner.cookie, { name: "Second", query: "" });
    expect((await post(owner.cookie, { intent: "view-rename", id: view.id, name: "Second" })).status).toBe(
      400,
    );
    expect((await post(owner.cookie, { intent: "view-rename", id: view.id, name: "Kept" })).status).toBe(200);
    expect((await post(owner.cookie, { intent: "view-delete", id: view.id })).status).toBe(200);
    expect(await stored(view.id)).toBeUndefined();
    expect((await post(owner.cookie, { intent: "view-delete", id: view.id })).status).toBe(404);
  });

  it("of the audit log need log.read to be seen, even by their owner", async () => {
    const admin = await signedIn(["admin"]);
    const made = await post(admin.cookie, {
      intent: "view-create",
      list: "audit",
      name: "Sign-ins",
      query: "action=auth.login.succeeded",
    });
    expect(made.status).toBe(200);
    const page = await run(() =>
      logsLoader(args(request("/dashboard/logs?action=auth.login.succeeded", { cookie: admin.cookie }))),
    );
    const views = (page.body as { savedViews: { views: SavedViewItem[]; current: string } }).savedViews;
    expect(views.views.map((v) => v.name)).toEqual(["Sign-ins"]);
    expect(views.current).toBe("action=auth.login.succeeded");
    // The owner loses log.read (here: the admin role is taken away): the view is no longer listed.
    await db().deleteFrom("user_role").where("user_id", "=", admin.id).execute();
    await db()
      .insertInto("user_role")
      .values({ user_id: admin.id, role_id: await roleId("manager") })
      .execute();
    const { sessionCookieFor } = await import("../../test/helpers");
    const cookie = await sessionCookieFor(admin.id);
    expect((await listed(cookie)).filter((v) => v.list === "audit")).toEqual([]);
  });
});
