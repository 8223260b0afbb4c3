import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { RecordingRunner } from "../../test/tasks";
import { db, now } from "../db.server";
import { action as tasksAction } from "../routes/api.tasks";
import { action as listAction } from "../routes/dashboard.users/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { setTaskRunner } from "../tasks/runner.server";

// The bulk bar as an insider would try it: a role that may change teams but not read the people
// list, and a super admin viewing as an admin (whose own record, and whose tasks, stay theirs).

beforeAll(setupDatabase);
beforeAll(() => setTaskRunner(new RecordingRunner()));

const onList = (cookie: string, values: Record<string, string | string[]>, search = "") =>
  run(() => listAction(args(formRequest(`/dashboard/users${search}`, values, { cookie }))));

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

async function person(roles: string[]) {
  const user = await createUser({ roles });
  return { ...user, cookie: await sessionCookieFor(user.id) };
}

async function rolesOf(userId: string) {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_id", "=", userId)
    .execute();
  return rows.map((r) => r.name).sort();
}

describe("the bulk bar needs the list itself", () => {
  it("a role with team.write but not user.read cannot add all matching people to a team", async () => {
    const ts = now();
    const custom = randomUUID();
    await db()
      .insertInto("role")
      .values({
        id: custom,
        name: `teams-only-${custom.slice(0, 6)}`,
        label: "Teams only",
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    const permissions = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "in", ["dashboard.access", "team.read", "team.write"])
      .execute();
    expect(permissions).toHaveLength(3);
    for (const p of permissions)
      await db().insertInto("role_permission").values({ role_id: custom, permission_id: p.id }).execute();
    const teamsOnly = await person([`teams-only-${custom.slice(0, 6)}`]);
    const teamId = randomUUID();
    await db()
      .insertInto("team")
      .values({
        id: teamId,
        name: `Harvest ${custom.slice(0, 6)}`,
        description: "",
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    const target = await createUser({ roles: ["user"], name: `Findable ${custom.slice(0, 6)}` });

    const out = await onList(
      teamsOnly.cookie,
      { intent: "bulk-add-to-team", scope: "matching", teamId },
      `?q=Findable%20${custom.slice(0, 6)}`,
    );
    expect(out.status).toBe(403);
    const members = await db()
      .selectFrom("team_member")
      .select("user_id")
      .where("team_id", "=", teamId)
      .execute();
    expect(members).toEqual([]);
    expect(target.id).toBeTruthy();
  });
});

describe("viewing as an admin", () => {
  async function viewingAs(target: { id: string }) {
    const root = await person(["super_admin"]);
    const req = formRequest(`/dashboard/users/${target.id}`, { intent: "view-as" }, { cookie: root.cookie });
    expect((await run(() => userAction(args(req, { id: target.id })))).status).toBe(302);
    return root;
  }

  it("the bulk bar gives the viewed admin no role; others ticked with them still get it", async () => {
    const admin = await person(["admin"]);
    const other = await createUser({ roles: ["user"] });
    const root = await viewingAs(admin);
    const out = await onList(root.cookie, {
      intent: "bulk-add-role",
      ids: [admin.id, other.id],
      roleId: await roleId("manager"),
    });
    expect(out.status).toBe(302);
    expect(await rolesOf(admin.id)).toEqual(["admin"]);
    expect(await rolesOf(other.id)).toEqual(["manager", "user"]);
  });

  it("POST /api/tasks refuses a task that acts on others as the viewed person, and stores none", async () => {
    const admin = await person(["admin"]);
    const root = await viewingAs(admin);
    const body = JSON.stringify({ type: "users.bulk", payload: { action: "disable", filter: { q: "x" } } });
    const out = await run(() =>
      tasksAction(
        args(
          request("/api/tasks", {
            method: "POST",
            cookie: root.cookie,
            body,
            headers: { "Content-Type": "application/json" },
          }),
        ),
      ),
    );
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({ error: "impersonating" });
    const tasks = await db().selectFrom("task").select("id").where("user_id", "=", admin.id).execute();
    expect(tasks).toEqual([]);
  });
});
