import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { createTeam, grant } from "../../test/support/teams";
import { deliverThroughRoute, RecordingRunner } from "../../test/tasks";
import { invalidateRoles } from "../access/role-cache.server";
import { db } from "../db.server";
import { action as tasksAction } from "../routes/api.tasks";
import { loader as download } from "../routes/api.tasks.$id.download";
import { action as listAction, loader as listLoader } from "../routes/dashboard.users/route";
import { insertTask } from "../tasks/repository.server";
import { InProcessTaskRunner, setTaskRunner } from "../tasks/runner.server";

// The users list's bulk bar and export for a lead granted `admin` within Sales (decision 044,
// SECURITY-PLAYBOOK §4-5): what they tick or match outside Sales is as if it did not exist, and
// what gives roles or widens a team stays for those who hold it over everyone.

let lead: { id: string; cookie: string };
let sam: string;
let sue: string;
let mia: string;

beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
  const l = await createUser({ roles: ["user"], name: "Lead Bulk" });
  sam = (await createUser({ roles: ["user"], name: "Sam Bulk", email: "sam@bulk.test" })).id;
  sue = (await createUser({ roles: ["user"], name: "Sue Bulk", email: "sue@bulk.test" })).id;
  mia = (await createUser({ roles: ["user"], name: "Mia Bulk", email: "mia@bulk.test" })).id;
  const sales = await createTeam(db(), "Sales", [l.id, sam, sue]);
  await createTeam(db(), "Marketing", [mia]);
  await grant(db(), l.id, "admin", sales);
  lead = { id: l.id, cookie: await sessionCookieFor(l.id) };
});

const act = (values: Record<string, string | string[]>, search = "") =>
  run(() => listAction(args(formRequest(`/dashboard/users${search}`, values, { cookie: lead.cookie }))));
const statusOf = async (id: string) =>
  (await db().selectFrom("user").select("status").where("id", "=", id).executeTakeFirst())?.status;

describe("a Sales lead's bulk bar", () => {
  it("offers enable, disable and delete, not the role acts", async () => {
    const page = await run(() => listLoader(args(request("/dashboard/users", { cookie: lead.cookie }))));
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ may: { update: true, delete: true }, bulkRoles: [] });
  });

  it("disables the ticked Sales member; a ticked Marketing member is left alone, unnamed", async () => {
    const res = await act({ intent: "bulk-disable", scope: "selected", ids: [sam, mia] });
    expect(res.status).toBe(302);
    expect(await statusOf(sam)).toBe("disabled");
    expect(await statusOf(mia)).toBe("active");
    await act({ intent: "bulk-enable", scope: "selected", ids: [sam] });
    expect(await statusOf(sam)).toBe("active");
  });

  it("'all matching' matches Sales' people only", async () => {
    const res = await act({ intent: "bulk-disable", scope: "matching", ids: [] }, "?q=Bulk");
    expect(res.status).toBe(302);
    expect(await statusOf(sue)).toBe("disabled");
    expect(await statusOf(sam)).toBe("disabled");
    expect(await statusOf(mia)).toBe("active");
    await act({ intent: "bulk-enable", scope: "matching", ids: [] }, "?q=Bulk");
    expect(await statusOf(sue)).toBe("active");
  });

  it("deletes nobody out of reach; role acts and adding to a team are refused outright", async () => {
    await act({ intent: "bulk-delete", scope: "selected", ids: [mia] });
    expect(await statusOf(mia)).toBe("active");
    const user = (
      await db().selectFrom("role").select("id").where("name", "=", "user").executeTakeFirstOrThrow()
    ).id;
    const role = await act({ intent: "bulk-remove-role", scope: "selected", ids: [sam], roleId: user });
    expect(role.status).toBe(403);
    const grants = await db().selectFrom("user_role").select("role_id").where("user_id", "=", sam).execute();
    expect(grants.map((g) => g.role_id)).toEqual([user]);
  });
});

describe("a Sales lead's export", () => {
  async function csvOf(payload: unknown) {
    const id = await insertTask({ type: "users.export", userId: lead.id, payload });
    const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
    runner.dispatch(id);
    await runner.idle();
    const res = await run(() =>
      download(args(request(`/api/tasks/${id}/download`, { cookie: lead.cookie }), { id })),
    );
    expect(res.status).toBe(200);
    return res.body as string;
  }

  it("may start one, and it holds Sales' people only, whatever was ticked or matched", async () => {
    const started = await run(() =>
      tasksAction(
        args(
          request("/api/tasks", {
            cookie: lead.cookie,
            method: "POST",
            body: JSON.stringify({ type: "users.export", payload: { ids: [sam] } }),
            headers: { "Content-Type": "application/json" },
          }),
        ),
      ),
    );
    expect(started.status).toBe(202);
    for (const payload of [undefined, { ids: [sam, mia] }, { filter: { q: "Bulk" } }]) {
      const csv = await csvOf(payload);
      expect(csv, JSON.stringify(payload)).toContain("sam@bulk.test");
      expect(csv, JSON.stringify(payload)).not.toContain("mia@bulk.test");
    }
  });
});

describe("the insider review's findings", () => {
  it("a file made with a wider reach is not downloaded once the reach is narrower", async () => {
    const l = await createUser({ roles: ["user"], name: "Lead Moves" });
    const sales = (
      await db().selectFrom("team").select("id").where("name", "=", "Sales").executeTakeFirstOrThrow()
    ).id;
    const marketing = (
      await db().selectFrom("team").select("id").where("name", "=", "Marketing").executeTakeFirstOrThrow()
    ).id;
    await db()
      .insertInto("team_member")
      .values(
        [sales, marketing].map((team_id) => ({
          team_id,
          user_id: l.id,
          team_role: "member" as const,
          created_at: new Date().toISOString(),
        })),
      )
      .execute();
    await grant(db(), l.id, "admin", sales);
    const cookie = await sessionCookieFor(l.id);
    const id = await insertTask({ type: "users.export", userId: l.id, payload: undefined });
    const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
    runner.dispatch(id);
    await runner.idle();
    const get = () => run(() => download(args(request(`/api/tasks/${id}/download`, { cookie }), { id })));
    expect((await get()).status).toBe(200);
    // Moved from Sales to Marketing: the Sales file is no longer theirs to read.
    await db().deleteFrom("user_role").where("user_id", "=", l.id).where("team_id", "=", sales).execute();
    await grant(db(), l.id, "admin", marketing);
    const moved = await sessionCookieFor(l.id);
    const again = await run(() =>
      download(args(request(`/api/tasks/${id}/download`, { cookie: moved }), { id })),
    );
    expect(again).toMatchObject({ status: 403, body: { permission: "user.read" } });
  });

  it("role acts on 'all matching' and their preview keep to the people the list shows", async () => {
    // user.update over everyone, but user.read only within Sales (admin there).
    const ts = new Date().toISOString();
    const roleId = crypto.randomUUID();
    await db()
      .insertInto("role")
      .values({ id: roleId, name: "updater", label: "Updater", created_at: ts, updated_at: ts })
      .execute();
    const perms = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "in", ["dashboard.access", "user.update"])
      .execute();
    await db()
      .insertInto("role_permission")
      .values(perms.map((p) => ({ role_id: roleId, permission_id: p.id })))
      .execute();
    await invalidateRoles();
    const u = await createUser({ roles: ["updater"], name: "Half Sighted" });
    const sales = (
      await db().selectFrom("team").select("id").where("name", "=", "Sales").executeTakeFirstOrThrow()
    ).id;
    await db()
      .insertInto("team_member")
      .values({ team_id: sales, user_id: u.id, team_role: "member", created_at: ts })
      .execute();
    await grant(db(), u.id, "admin", sales);
    const cookie = await sessionCookieFor(u.id);
    const manager = (
      await db().selectFrom("role").select("id").where("name", "=", "manager").executeTakeFirstOrThrow()
    ).id;
    const post = (values: Record<string, string | string[]>, search: string) =>
      run(() => listAction(args(formRequest(`/dashboard/users${search}`, values, { cookie }))));
    const preview = await post(
      { intent: "preview-bulk-roles", scope: "matching", mode: "add", roleIds: [manager] },
      "?q=mia%40bulk",
    );
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(JSON.stringify(preview.body)).not.toContain(mia);
    const unknown = await post(
      {
        intent: "preview-bulk-roles",
        scope: "selected",
        ids: [crypto.randomUUID(), mia],
        mode: "add",
        roleIds: [manager],
      },
      "",
    );
    expect(unknown.status).toBe(200);
    expect(JSON.stringify(unknown.body)).not.toContain(mia);
    await post({ intent: "bulk-add-role", scope: "matching", roleId: manager }, "?q=mia%40bulk");
    await post({ intent: "bulk-add-role", scope: "selected", ids: [mia], roleId: manager }, "");
    const held = await db().selectFrom("user_role").select("role_id").where("user_id", "=", mia).execute();
    expect(held.map((h) => h.role_id)).not.toContain(manager);
  });

  it("a lead cannot queue a role act as a task through the API", async () => {
    const manager = (
      await db().selectFrom("role").select("id").where("name", "=", "manager").executeTakeFirstOrThrow()
    ).id;
    const res = await run(() =>
      tasksAction(
        args(
          request("/api/tasks", {
            cookie: lead.cookie,
            method: "POST",
            body: JSON.stringify({
              type: "users.bulk",
              payload: { action: "add-role", roleId: manager, filter: {} },
            }),
            headers: { "Content-Type": "application/json" },
          }),
        ),
      ),
    );
    expect(res.status).toBe(403);
  });
});
