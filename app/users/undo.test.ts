import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { createTeam, grant } from "../../test/support/teams";
import { invalidateSessions } from "../auth/session.server";
import { db, now } from "../db.server";
import { readToast } from "../http/toast.server";
import { action as undoAction } from "../routes/api.undo";
import { action as teamAction } from "../routes/dashboard.teams.$id/route";
import { action as listAction } from "../routes/dashboard.users/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";

// Undo from a toast: the act's answer carries an opaque token; POST /api/undo with it applies
// the inverse once, for the person who acted, while they may and while nothing changed meanwhile.

beforeAll(setupDatabase);

const post = (path: string, cookie: string, values: Record<string, string | string[]>) =>
  formRequest(path, values, { cookie });
const onUser = (id: string, cookie: string, values: Record<string, string | string[]>) =>
  run(() => userAction(args(post(`/dashboard/users/${id}`, cookie, values), { id })));
const onTeam = (id: string, cookie: string, values: Record<string, string>) =>
  run(() => teamAction(args(post(`/dashboard/teams/${id}`, cookie, values), { id })));
const onList = (cookie: string, values: Record<string, string | string[]>) =>
  run(() => listAction(args(post("/dashboard/users", cookie, values))));
const undo = (cookie: string, token: string) =>
  run(() => undoAction(args(post("/api/undo", cookie, { token }))));

/** The toast the act's redirect carries: its text and its Undo token. */
async function toastOf(out: { headers: Headers }) {
  const cookie = out.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  return (await readToast(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toast;
}

async function tokenOf(out: { status: number; headers: Headers }) {
  expect(out.status).toBe(302);
  const token = (await toastOf(out))?.undo;
  expect(token).toEqual(expect.any(String));
  return token!;
}

const statusOf = async (id: string) =>
  (await db().selectFrom("user").select("status").where("id", "=", id).executeTakeFirst())?.status;

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

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

const auditRows = (action: string, targetId: string) =>
  db()
    .selectFrom("audit_log")
    .select(["actor_id", "details"])
    .where("action", "=", action)
    .where("target_id", "=", targetId)
    .execute();

async function disabledBy(admin: { cookie: string }) {
  const person = await createUser({ roles: ["user"] });
  const token = await tokenOf(await onUser(person.id, admin.cookie, { intent: "disable" }));
  expect(await statusOf(person.id)).toBe("disabled");
  return { person, token };
}

describe("undo a disabling", () => {
  it("enables the person again, audited as an undo by the actor, and only once", async () => {
    const admin = await signedIn(["admin"]);
    const { person, token } = await disabledBy(admin);
    const undone = await undo(admin.cookie, token);
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ ok: true, message: "Undone: the user is active again." });
    expect(await statusOf(person.id)).toBe("active");
    const rows = await auditRows("user.disable.undone", person.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor_id).toBe(admin.id);
    expect(JSON.parse(rows[0]!.details!)).toMatchObject({ after: { status: "active" } });

    // Used twice: gone, and a disabling in between is not undone by the old token.
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", person.id).execute();
    const again = await undo(admin.cookie, token);
    expect(again.status).toBe(410);
    expect(again.body).toMatchObject({ error: "gone", formError: "This was already undone." });
    expect(await statusOf(person.id)).toBe("disabled");
    expect(await auditRows("user.disable.undone", person.id)).toHaveLength(1);
  });

  it("refuses a forged token with 400 and no change", async () => {
    const admin = await signedIn(["admin"]);
    const { person } = await disabledBy(admin);
    for (const forged of ["x".repeat(43), randomUUID(), ""]) {
      expect((await undo(admin.cookie, forged)).status).toBe(400);
    }
    expect(await statusOf(person.id)).toBe("disabled");
  });

  it("a lead within a team undoes their own disabling of a member there", async () => {
    const lead = await signedIn(["user"]);
    const member = await createUser({ roles: ["user"] });
    const team = await createTeam(db(), `Undo ${randomUUID()}`, [lead.id, member.id]);
    await grant(db(), lead.id, "admin", team);
    const token = await tokenOf(await onUser(member.id, lead.cookie, { intent: "disable" }));
    const out = await undo(lead.cookie, token);
    expect(out.status).toBe(200);
    expect(await statusOf(member.id)).toBe("active");
  });

  it("refuses someone else's token with 403, without spending it", async () => {
    const admin = await signedIn(["admin"]);
    const other = await signedIn(["admin"]);
    const { person, token } = await disabledBy(admin);
    const theirs = await undo(other.cookie, token);
    expect(theirs.status).toBe(403);
    expect(theirs.body).toMatchObject({ formError: "This undo belongs to someone else." });
    expect(await statusOf(person.id)).toBe("disabled");
    expect((await undo(admin.cookie, token)).status).toBe(200);
  });

  it("refuses an expired token with 410", async () => {
    const admin = await signedIn(["admin"]);
    const { person, token } = await disabledBy(admin);
    await db()
      .updateTable("user_token")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", admin.id)
      .where("kind", "=", "undo")
      .execute();
    const late = await undo(admin.cookie, token);
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ formError: "Too late to undo: the offer has expired." });
    expect(await statusOf(person.id)).toBe("disabled");
  });

  it("the token lives two minutes, bound to the actor", async () => {
    const admin = await signedIn(["admin"]);
    await disabledBy(admin);
    const row = await db()
      .selectFrom("user_token")
      .select(["user_id", "expires_at", "created_at", "data", "token_hash"])
      .where("user_id", "=", admin.id)
      .where("kind", "=", "undo")
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(120_000);
    expect(JSON.parse(String(row.data))).toMatchObject({ kind: "user.disable" });
  });

  it("answers 409 when the person was enabled or deleted meanwhile, changing nothing", async () => {
    const admin = await signedIn(["admin"]);
    const first = await disabledBy(admin);
    await onUser(first.person.id, admin.cookie, { intent: "enable" });
    const enabled = await undo(admin.cookie, first.token);
    expect(enabled.status).toBe(409);
    expect(enabled.body).toMatchObject({ error: "conflict" });
    expect(await auditRows("user.disable.undone", first.person.id)).toEqual([]);

    const second = await disabledBy(admin);
    await db().deleteFrom("user").where("id", "=", second.person.id).execute();
    expect((await undo(admin.cookie, second.token)).status).toBe(409);
    expect(await statusOf(second.person.id)).toBeUndefined();
  });

  it("refuses with 403 when the actor lost the permission meanwhile", async () => {
    const admin = await signedIn(["admin"]);
    const { person, token } = await disabledBy(admin);
    await db().deleteFrom("user_role").where("user_id", "=", admin.id).execute();
    await db()
      .insertInto("user_role")
      .values({ user_id: admin.id, role_id: await roleId("manager") })
      .execute();
    await invalidateSessions();
    const refused = await undo(admin.cookie, token);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      formError: "You may no longer do this, so it cannot be undone.",
    });
    expect(await statusOf(person.id)).toBe("disabled");
    expect(await auditRows("user.disable.undone", person.id)).toEqual([]);
  });

  it("needs a session with dashboard access", async () => {
    const admin = await signedIn(["admin"]);
    const { token } = await disabledBy(admin);
    const guest = await signedIn(["guest"]);
    expect((await undo(guest.cookie, token)).status).toBe(403);
  });

  it("a bulk disabling is undone for everyone it changed, and only them", async () => {
    const admin = await signedIn(["admin"]);
    const a = await createUser({ roles: ["user"] });
    const b = await createUser({ roles: ["user"] });
    const already = await createUser({ roles: ["user"] });
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", already.id).execute();
    const out = await onList(admin.cookie, { intent: "bulk-disable", ids: [a.id, b.id, already.id] });
    const token = await tokenOf(out);
    // b is enabled by someone else meanwhile: left as it is, and said so.
    await db().updateTable("user").set({ status: "active" }).where("id", "=", b.id).execute();
    const undone = await undo(admin.cookie, token);
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({
      message: "Undone: the user is active again. 1 had changed since and was left as it is.",
    });
    expect(await statusOf(a.id)).toBe("active");
    expect(await statusOf(already.id)).toBe("disabled");
    expect(await auditRows("user.disable.undone", a.id)).toHaveLength(1);
    expect(await auditRows("user.disable.undone", b.id)).toEqual([]);
  });
});

describe("undo a role removal", () => {
  it("grants back the roles an edit took away; 409 once one is held again", async () => {
    const admin = await signedIn(["admin"]);
    const person = await createUser({ roles: ["user", "manager"] });
    const edit = {
      intent: "update",
      name: person.name,
      email: person.email,
      roles: [await roleId("user")],
    };
    const out = await onUser(person.id, admin.cookie, edit);
    expect((await toastOf(out))?.message).toBe("Saved. Roles removed: Manager.");
    const token = await tokenOf(out);
    expect(await rolesOf(person.id)).toEqual(["user"]);
    const undone = await undo(admin.cookie, token);
    expect(undone.status).toBe(200);
    expect(await rolesOf(person.id)).toEqual(["manager", "user"]);
    const rows = await auditRows("user.role_removal.undone", person.id);
    expect(rows.map((r) => r.actor_id)).toEqual([admin.id]);

    const again = await onUser(person.id, admin.cookie, edit);
    const second = await tokenOf(again);
    await db()
      .insertInto("user_role")
      .values({ user_id: person.id, role_id: await roleId("manager") })
      .execute();
    expect((await undo(admin.cookie, second)).status).toBe(409);
    expect(await auditRows("user.role_removal.undone", person.id)).toHaveLength(1);
  });

  it("an edit that takes no role away offers no Undo", async () => {
    const admin = await signedIn(["admin"]);
    const person = await createUser({ roles: ["user"] });
    const out = await onUser(person.id, admin.cookie, {
      intent: "update",
      name: "Renamed",
      email: person.email,
      roles: [await roleId("user")],
    });
    expect(await toastOf(out)).toEqual({ kind: "success", message: "Saved. Name: Renamed." });
  });

  it("the toast says what changed: roles added and removed by name, an email to verify again", async () => {
    const admin = await signedIn(["admin"]);
    const person = await createUser({ roles: ["user"] });
    const out = await onUser(person.id, admin.cookie, {
      intent: "update",
      name: person.name,
      email: `again-${person.email}`,
      roles: [await roleId("manager")],
    });
    expect((await toastOf(out))?.message).toBe(
      `Saved. Email: again-${person.email}, to be verified again. Roles added: Manager. Roles removed: User.`,
    );
  });

  it("a save that changes nothing writes nothing and says so", async () => {
    const admin = await signedIn(["admin"]);
    const person = await createUser({ roles: ["user"] });
    const unchanged = {
      intent: "update",
      name: person.name,
      email: person.email,
      roles: [await roleId("user")],
    };
    const out = await onUser(person.id, admin.cookie, unchanged);
    expect(await toastOf(out)).toEqual({ kind: "info", message: "Nothing to save: nothing was changed." });
    expect(await auditRows("user.update", person.id)).toEqual([]);
  });

  it("a bulk role removal is undone for those it changed", async () => {
    const admin = await signedIn(["admin"]);
    const a = await createUser({ roles: ["user", "manager"] });
    const b = await createUser({ roles: ["user", "manager"] });
    const manager = await roleId("manager");
    const token = await tokenOf(
      await onList(admin.cookie, { intent: "bulk-remove-role", ids: [a.id, b.id], roleId: manager }),
    );
    expect(await rolesOf(a.id)).toEqual(["user"]);
    expect((await undo(admin.cookie, token)).status).toBe(200);
    expect(await rolesOf(a.id)).toEqual(["manager", "user"]);
    expect(await rolesOf(b.id)).toEqual(["manager", "user"]);
  });
});

describe("undo a removal from a team", () => {
  it("puts the member back with the team role they had; once; 409 once they are back", async () => {
    const manager = await signedIn(["manager"]);
    const person = await createUser({ roles: ["user"] });
    const teamId = randomUUID();
    const ts = now();
    await db()
      .insertInto("team")
      .values({ id: teamId, name: `Undo ${teamId}`, description: "", created_at: ts, updated_at: ts })
      .execute();
    await db()
      .insertInto("team_member")
      .values({ team_id: teamId, user_id: person.id, team_role: "lead", created_at: ts })
      .execute();
    const removed = await onTeam(teamId, manager.cookie, { intent: "remove-member", userId: person.id });
    const token = await tokenOf(removed);
    const members = () =>
      db().selectFrom("team_member").select(["user_id", "team_role"]).where("team_id", "=", teamId).execute();
    expect(await members()).toEqual([]);
    const undone = await undo(manager.cookie, token);
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ message: "Undone: the member is back in the team." });
    expect(await members()).toEqual([{ user_id: person.id, team_role: "lead" }]);
    const rows = await db()
      .selectFrom("audit_log")
      .select(["actor_id", "details"])
      .where("action", "=", "team.member.remove.undone")
      .where("target_id", "=", teamId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.details!)).toEqual({ user: person.id, after: { team_role: "lead" } });
    expect((await undo(manager.cookie, token)).status).toBe(410);

    // Removed again, then added back by hand before the Undo: nothing to undo.
    const second = await tokenOf(
      await onTeam(teamId, manager.cookie, { intent: "remove-member", userId: person.id }),
    );
    await onTeam(teamId, manager.cookie, { intent: "set-member", userId: person.id, teamRole: "member" });
    expect((await undo(manager.cookie, second)).status).toBe(409);
    expect(await members()).toEqual([{ user_id: person.id, team_role: "member" }]);
  });

  it("someone who lost team.write may not undo it", async () => {
    const manager = await signedIn(["manager"]);
    const person = await createUser({ roles: ["user"] });
    const teamId = randomUUID();
    const ts = now();
    await db()
      .insertInto("team")
      .values({ id: teamId, name: `Lost ${teamId}`, description: "", created_at: ts, updated_at: ts })
      .execute();
    await db()
      .insertInto("team_member")
      .values({ team_id: teamId, user_id: person.id, team_role: "member", created_at: ts })
      .execute();
    const token = await tokenOf(
      await onTeam(teamId, manager.cookie, { intent: "remove-member", userId: person.id }),
    );
    await db().deleteFrom("user_role").where("user_id", "=", manager.id).execute();
    await db()
      .insertInto("user_role")
      .values({ user_id: manager.id, role_id: await roleId("user") })
      .execute();
    await invalidateSessions();
    expect((await undo(manager.cookie, token)).status).toBe(403);
    expect(
      await db().selectFrom("team_member").select("user_id").where("team_id", "=", teamId).execute(),
    ).toEqual([]);
  });
});
