import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { deliverThroughRoute, RecordingRunner } from "../../test/tasks";
import { db, now } from "../db.server";
import { readToast } from "../http/toast.server";
import { action as listAction } from "../routes/dashboard.users/route";
import { InProcessTaskRunner, setTaskRunner } from "../tasks/runner.server";
import { BULK_INLINE_MAX } from "./bulk.server";

// The users list's bulk bar through the page's action: each act with its own permission, the
// people ticked or "all matching" (the filters read from the page's address, never a list of ids
// from the browser), and past BULK_INLINE_MAX people a users.bulk task.

beforeAll(setupDatabase);
const recording = new RecordingRunner();
beforeAll(() => setTaskRunner(recording));

const onList = (cookie: string, values: Record<string, string | string[]>, search = "") =>
  run(() => listAction(args(formRequest(`/dashboard/users${search}`, values, { cookie }))));

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

async function rolesOf(userId: string) {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_id", "=", userId)
    .orderBy("role.name")
    .execute();
  return rows.map((r) => r.name);
}

async function statusOf(ids: string[]) {
  const rows = await db().selectFrom("user").select(["id", "status"]).where("id", "in", ids).execute();
  return Object.fromEntries(rows.map((r) => [r.id, r.status]));
}

/** `n` people whose names share `tag`, inserted at once; `status` for all of them. */
async function people(tag: string, n: number, status: "active" | "disabled" = "active") {
  const ts = now();
  const rows = Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    name: `${tag} ${i}`,
    email: `${tag}-${status}-${i}@bulk.test`,
    status,
    created_at: ts,
    updated_at: ts,
  }));
  await db().insertInto("user").values(rows).execute();
  return rows.map((r) => r.id);
}

async function toastOf(out: { headers: Headers }) {
  const cookie = out.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  return (await readToast(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toast?.message;
}

describe("bulk acts on the people ticked", () => {
  it("adds a role to some, leaves those who hold it, and removes it again; each change audited", async () => {
    const admin = await signedIn(["admin"]);
    const a = await createUser({ roles: ["user"] });
    const b = await createUser({ roles: ["user", "manager"] });
    const manager = await roleId("manager");
    const added = await onList(admin.cookie, { intent: "bulk-add-role", ids: [a.id, b.id], roleId: manager });
    expect(added.status).toBe(302);
    expect(await rolesOf(a.id)).toEqual(["manager", "user"]);
    expect(await rolesOf(b.id)).toEqual(["manager", "user"]);
    const audits = await db()
      .selectFrom("audit_log")
      .select(["target_id", "details"])
      .where("action", "=", "user.update")
      .where("target_id", "in", [a.id, b.id])
      .execute();
    // b already had it: one row, for a, saying only the roles moved.
    expect(audits.map((r) => r.target_id)).toEqual([a.id]);
    expect(JSON.parse(audits[0]!.details!)).toMatchObject({ before: { roles: [expect.any(String)] } });

    await onList(admin.cookie, { intent: "bulk-remove-role", ids: [a.id, b.id], roleId: manager });
    expect(await rolesOf(a.id)).toEqual(["user"]);
    expect(await rolesOf(b.id)).toEqual(["user"]);
  });

  it("never grants super admin, nor takes it: refused per person, the others done", async () => {
    const admin = await signedIn(["admin"]);
    const a = await createUser({ roles: ["user"] });
    const top = await createUser({ roles: ["super_admin"] });
    const superAdmin = await roleId("super_admin");
    const out = await onList(admin.cookie, { intent: "bulk-add-role", ids: [a.id], roleId: superAdmin });
    expect(out.status).toBe(302);
    expect(await toastOf(out)).toBe(
      "Refused 1: You cannot grant or remove Super Admin: only a super admin can.",
    );
    expect(await rolesOf(a.id)).toEqual(["user"]);
    await onList(admin.cookie, { intent: "bulk-remove-role", ids: [top.id], roleId: superAdmin });
    expect(await rolesOf(top.id)).toEqual(["super_admin"]);
    await onList(admin.cookie, { intent: "bulk-disable", ids: [top.id, a.id] });
    expect(await statusOf([top.id, a.id])).toEqual({ [top.id]: "active", [a.id]: "disabled" });
  });

  it("enables, and adds to a team as members without demoting a lead", async () => {
    const admin = await signedIn(["admin"]);
    const [off] = await people(`Enable${randomUUID().slice(0, 6)}`, 1, "disabled");
    await onList(admin.cookie, { intent: "bulk-enable", ids: [off!] });
    expect(await statusOf([off!])).toEqual({ [off!]: "active" });

    const lead = await createUser({ roles: ["user"] });
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: `Bulk team ${team}`, description: "", created_at: now(), updated_at: now() })
      .execute();
    await db()
      .insertInto("team_member")
      .values({ team_id: team, user_id: lead.id, team_role: "lead", created_at: now() })
      .execute();
    const out = await onList(admin.cookie, {
      intent: "bulk-add-to-team",
      ids: [off!, lead.id],
      teamId: team,
    });
    expect(out.status).toBe(302);
    const members = await db()
      .selectFrom("team_member")
      .select(["user_id", "team_role"])
      .where("team_id", "=", team)
      .execute();
    expect(Object.fromEntries(members.map((m) => [m.user_id, m.team_role]))).toEqual({
      [off!]: "member",
      [lead.id]: "lead",
    });
  });

  it("asks each act's own permission, a role or team that exists, and someone chosen", async () => {
    const manager = await signedIn(["manager"]);
    const admin = await signedIn(["admin"]);
    const a = await createUser({ roles: ["user"] });
    expect((await onList(manager.cookie, { intent: "bulk-enable", ids: [a.id] })).status).toBe(403);
    expect((await onList(manager.cookie, { intent: "bulk-delete", ids: [a.id] })).status).toBe(403);
    expect(
      (await onList(manager.cookie, { intent: "bulk-add-role", ids: [a.id], roleId: await roleId("user") }))
        .status,
    ).toBe(403);
    expect((await onList(admin.cookie, { intent: "bulk-add-role", ids: [a.id], roleId: "" })).status).toBe(
      400,
    );
    expect(
      (await onList(admin.cookie, { intent: "bulk-add-role", ids: [a.id], roleId: randomUUID() })).status,
    ).toBe(404);
    expect(
      (await onList(admin.cookie, { intent: "bulk-add-to-team", ids: [a.id], teamId: randomUUID() })).status,
    ).toBe(404);
    expect((await onList(admin.cookie, { intent: "bulk-enable" })).status).toBe(400);
    expect(
      (await onList(admin.cookie, { intent: "bulk-disable", ids: Array.from({ length: 101 }, randomUUID) }))
        .status,
    ).toBe(400);
  });
});

describe("bulk acts on all matching", () => {
  it("reads the filters from the page's address and ignores ids sent beside them", async () => {
    const admin = await signedIn(["admin"]);
    const tag = `Match${randomUUID().slice(0, 6)}`;
    const off = await people(tag, 3, "disabled");
    const on = await people(tag, 2, "active");
    const [outsider] = await people(`Other${randomUUID().slice(0, 6)}`, 1, "disabled");
    const out = await onList(
      admin.cookie,
      { intent: "bulk-enable", scope: "matching", ids: [outsider!] },
      `?q=${tag}&status=disabled&sort=name&size=25`,
    );
    expect(out.status).toBe(302);
    expect(await toastOf(out)).toMatch(/Enabled 3 users/);
    expect(Object.values(await statusOf([...off, ...on]))).toEqual(Array(5).fill("active"));
    expect(await statusOf([outsider!])).toEqual({ [outsider!]: "disabled" });
  });

  it(`past ${BULK_INLINE_MAX} people starts a users.bulk task, which re-reads the filters and reports progress`, async () => {
    const admin = await signedIn(["admin"]);
    const tag = `Many${randomUUID().slice(0, 6)}`;
    const ids = await people(tag, BULK_INLINE_MAX + 5, "active");
    const out = await onList(admin.cookie, { intent: "bulk-disable", scope: "matching" }, `?q=${tag}`);
    expect(out.status).toBe(302);
    expect(await toastOf(out)).toMatch(/in the background/);
    // Nothing changed in the request itself.
    expect(new Set(Object.values(await statusOf(ids)))).toEqual(new Set(["active"]));
    const task = await db()
      .selectFrom("task")
      .select(["id", "payload", "user_id"])
      .where("type", "=", "users.bulk")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(recording.dispatched).toContain(task.id);
    expect(task.user_id).toBe(admin.id);
    expect(JSON.parse(task.payload!)).toEqual({
      action: "disable",
      filter: { q: tag, role: "", status: "", verified: "", created: "" },
    });

    const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
    runner.dispatch(task.id);
    await runner.idle();
    const done = await db()
      .selectFrom("task")
      .select(["status", "result"])
      .where("id", "=", task.id)
      .executeTakeFirstOrThrow();
    expect(done.status).toBe("completed");
    expect(JSON.parse(done.result!)).toMatchObject({ matched: ids.length, done: ids.length, refused: 0 });
    expect(new Set(Object.values(await statusOf(ids)))).toEqual(new Set(["disabled"]));
    const audited = await db()
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("action", "=", "user.disable")
      .where("target_id", "in", ids)
      .executeTakeFirstOrThrow();
    expect(Number(audited.n)).toBe(ids.length);
  });

  it("a task whose owner lost the permission meanwhile changes nobody", async () => {
    const admin = await signedIn(["admin"]);
    const tag = `Lost${randomUUID().slice(0, 6)}`;
    const ids = await people(tag, BULK_INLINE_MAX + 1, "active");
    await onList(admin.cookie, { intent: "bulk-disable", scope: "matching" }, `?q=${tag}`);
    const task = await db()
      .selectFrom("task")
      .select("id")
      .where("type", "=", "users.bulk")
      .where("user_id", "=", admin.id)
      .executeTakeFirstOrThrow();
    await db().deleteFrom("user_role").where("user_id", "=", admin.id).execute();
    await db()
      .insertInto("user_role")
      .values({ user_id: admin.id, role_id: await roleId("manager") })
      .execute();
    const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
    runner.dispatch(task.id);
    await runner.idle();
    const done = await db()
      .selectFrom("task")
      .select(["status", "result"])
      .where("id", "=", task.id)
      .executeTakeFirstOrThrow();
    expect(done.status).toBe("failed");
    expect(new Set(Object.values(await statusOf(ids)))).toEqual(new Set(["active"]));
  });
});

describe("change roles (add, remove or replace, in one act)", () => {
  it("replaces the roles of everyone ticked, and says how many it left without any", async () => {
    const admin = await signedIn(["admin"]);
    const tag = `swap${randomUUID().slice(0, 6)}`;
    const ids = await people(tag, 3);
    for (const id of ids)
      await db()
        .insertInto("user_role")
        .values({ user_id: id, role_id: await roleId("user") })
        .execute();
    const replaced = await onList(admin.cookie, {
      intent: "bulk-change-roles",
      ids,
      mode: "replace",
      roleIds: [await roleId("manager"), await roleId("guest")],
    });
    expect(replaced.status).toBe(302);
    expect(await toastOf(replaced)).toBe("Changed the roles of 3 users.");
    for (const id of ids) expect(await rolesOf(id)).toEqual(["guest", "manager"]);
    const rows = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "user.update")
      .where("target_id", "in", ids)
      .execute();
    expect(rows).toHaveLength(3);

    const removed = await onList(admin.cookie, {
      intent: "bulk-change-roles",
      ids,
      mode: "remove",
      roleIds: [await roleId("manager"), await roleId("guest")],
    });
    expect(await toastOf(removed)).toBe(
      "Changed the roles of 3 users. 3 are now without any role, and so without access.",
    );
    for (const id of ids) expect(await rolesOf(id)).toEqual([]);
  });

  it("refuses no way or no role to add, a role that does not exist, and grants nothing beyond the actor's", async () => {
    const admin = await signedIn(["admin"]);
    const [id] = await people(`norole${randomUUID().slice(0, 6)}`, 1);
    for (const values of [
      { mode: "add", roleIds: [] },
      { mode: "keep", roleIds: [await roleId("user")] },
    ]) {
      const out = await onList(admin.cookie, { intent: "bulk-change-roles", ids: [id!], ...values });
      expect(out.status, JSON.stringify(values)).toBe(400);
    }
    const ghost = await onList(admin.cookie, {
      intent: "bulk-change-roles",
      ids: [id!],
      mode: "add",
      roleIds: [randomUUID()],
    });
    expect(ghost.status).toBe(404);
    const beyond = await onList(admin.cookie, {
      intent: "bulk-change-roles",
      ids: [id!],
      mode: "add",
      roleIds: [await roleId("super_admin")],
    });
    expect(await toastOf(beyond)).toMatch(/^Refused 1: You cannot grant/);
    expect(await rolesOf(id!)).toEqual([]);
    const plain = await signedIn(["user"]);
    const refused = await onList(plain.cookie, {
      intent: "bulk-change-roles",
      ids: [id!],
      mode: "add",
      roleIds: [await roleId("user")],
    });
    expect(refused.status).toBe(403);
  });
});

describe("Change roles' preview", () => {
  it("says who gains and loses what, from the same change the save applies, and writes nothing", async () => {
    const admin = await signedIn(["admin"]);
    const tag = `pv${Date.now().toString(36)}`;
    const a = await createUser({ roles: ["user"], name: `${tag} Ann` });
    const b = await createUser({ roles: ["manager"], name: `${tag} Ben` });
    const manager = (
      await db().selectFrom("role").select("id").where("name", "=", "manager").executeTakeFirstOrThrow()
    ).id;
    const before = await db()
      .selectFrom("user_role")
      .select(["user_id", "role_id"])
      .orderBy("user_id")
      .orderBy("role_id")
      .execute();
    type Shift = { user: { id: string }; permission: string };
    const said = (res: { body: unknown }) => {
      const { preview } = res.body as { preview: { gains: Shift[]; losses: Shift[] } };
      const name = (s: Shift) => (s.user.id === a.id ? "ann" : s.user.id === b.id ? "ben" : "?");
      return {
        gains: preview.gains.map((s) => `${name(s)}:${s.permission}`).sort(),
        losses: preview.losses.map((s) => `${name(s)}:${s.permission}`).sort(),
      };
    };
    // Replacing both people's roles with manager: Ann gains manager's, Ben keeps his.
    const replaced = await onList(admin.cookie, {
      intent: "preview-bulk-roles",
      scope: "selected",
      ids: [a.id, b.id],
      mode: "replace",
      roleIds: [manager],
    });
    expect(replaced.status).toBe(200);
    expect(said(replaced)).toEqual({
      gains: ["ann:team.read", "ann:team.write", "ann:user.read"],
      losses: [],
    });
    // Removing manager from all matching the filter: Ben loses what only manager gave him.
    const removed = await onList(
      admin.cookie,
      { intent: "preview-bulk-roles", scope: "matching", mode: "remove", roleIds: [manager] },
      `?q=${tag}`,
    );
    expect(said(removed)).toEqual({
      gains: [],
      losses: ["ben:dashboard.access", "ben:team.read", "ben:team.write", "ben:user.read"],
    });
    const after = await db()
      .selectFrom("user_role")
      .select(["user_id", "role_id"])
      .orderBy("user_id")
      .orderBy("role_id")
      .execute();
    expect(after).toEqual(before);
    // Only for those who may make the change.
    const plain = await signedIn(["manager"]);
    const refused = await onList(plain.cookie, {
      intent: "preview-bulk-roles",
      scope: "selected",
      ids: [a.id],
      mode: "add",
      roleIds: [manager],
    });
    expect(refused.status).toBe(403);
  });
});
