import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, sessionCookieFor, setupDatabase, signedIn } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { menuItems } from "../access/menu.server";
import { moveMenuItem } from "../access/menu-admin.server";
import { createRole, deleteRole, updateRole } from "../access/roles-admin.server";
import { changePassword, revokeMySessions, updateProfile } from "../auth/account.server";
import { cancelInvitation, inviteUser } from "../auth/invitations.server";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { sendBroadcast } from "../notifications/broadcast.server";
import { applySettingsChanges } from "../settings/update-settings.server";
import { describeSystemConfig } from "../system-settings/system-config.server";
import { createTeam, deleteTeam, setMember } from "../teams/teams.server";
import { bulkUsers } from "../users/bulk.server";
import { deleteUser, setUserStatus, updateUser } from "../users/users.server";

// Every change writes its audit row in the same transaction (app/audit/audit.server.ts): when the
// audit insert fails, the change is rolled back and the caller sees the error. The failure is a
// database trigger on audit_log, so the real insert inside the real transaction is what fails.

beforeAll(setupDatabase);

async function breakAudit() {
  if (onPostgres) {
    await sql`create or replace function audit_down() returns trigger as $$ begin raise exception 'audit down'; end $$ language plpgsql`.execute(
      db(),
    );
    await sql`create trigger audit_down before insert on audit_log for each row execute function audit_down()`.execute(
      db(),
    );
  } else {
    await sql`create trigger audit_down before insert on audit_log begin select raise(abort, 'audit down'); end`.execute(
      db(),
    );
  }
}

afterEach(async () => {
  await sql`drop trigger if exists audit_down${onPostgres ? sql` on audit_log` : sql``}`.execute(db());
});

const origin = () => args(request("/dashboard")) as { request: Request };

async function actorFor(roles: string[]): Promise<SessionUser> {
  const { cookie } = await signedIn(roles);
  return (await getSessionUser({ request: request("/", { cookie }) }))!;
}

async function auditCount() {
  const row = await db()
    .selectFrom("audit_log")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Runs the change with the audit insert failing: it must throw, and leave `state()` and the log as they were. */
async function rolledBack(change: () => Promise<unknown>, state: () => Promise<unknown>) {
  const before = await state();
  const audits = await auditCount();
  await breakAudit();
  await expect(change()).rejects.toThrow(/audit down/);
  await sql`drop trigger if exists audit_down${onPostgres ? sql` on audit_log` : sql``}`.execute(db());
  expect(await state()).toEqual(before);
  expect(await auditCount()).toBe(audits);
}

const userRow = (id: string) =>
  db().selectFrom("user").select(["name", "email", "status"]).where("id", "=", id).executeTakeFirst();
const sessionsOf = async (id: string) =>
  (await db().selectFrom("session").select("id").where("user_id", "=", id).execute()).length;

describe("a change and its audit row commit together", () => {
  it("users: update, disable (sessions kept), delete, bulk", async () => {
    const admin = await actorFor(["super_admin"]);
    const target = await signedIn(["user"]);
    const state = async () => ({ user: await userRow(target.id), sessions: await sessionsOf(target.id) });
    await rolledBack(
      () => updateUser(admin, { id: target.id, name: "Renamed", email: target.email, roles: [] }, origin()),
      state,
    );
    await rolledBack(() => setUserStatus(admin, { id: target.id, status: "disabled" }, origin()), state);
    await rolledBack(() => deleteUser(admin, { id: target.id }, origin()), state);
    await rolledBack(() => bulkUsers(admin, { ids: [target.id], action: "delete" }, origin()), state);
  });

  it("teams: create, add a member, delete", async () => {
    const admin = await actorFor(["super_admin"]);
    const teams = async () => db().selectFrom("team").selectAll().orderBy("id").execute();
    await rolledBack(() => createTeam(admin, { name: "Atomic", description: "" }, origin()), teams);
    const id = await createTeam(admin, { name: "Kept", description: "" }, origin());
    const member = await createUser();
    const members = () => db().selectFrom("team_member").selectAll().where("team_id", "=", id).execute();
    await rolledBack(
      () => setMember(admin, { teamId: id, userId: member.id, teamRole: "member" }, origin()),
      members,
    );
    await rolledBack(() => deleteTeam(admin, { id }, origin()), teams);
  });

  it("access: roles and the menu", async () => {
    const admin = await actorFor(["super_admin"]);
    const roles = () => db().selectFrom("role").select(["id", "name", "label"]).orderBy("id").execute();
    await rolledBack(
      () => createRole(admin, { name: "atomic", label: "Atomic", permissions: ["user.read"] }, origin()),
      roles,
    );
    const roleId = await createRole(admin, { name: "kept", label: "Kept", permissions: [] }, origin());
    const links = () =>
      db().selectFrom("role_permission").selectAll().where("role_id", "=", roleId).execute();
    await rolledBack(
      () => updateRole(admin, { roleId, label: "Changed", permissions: ["user.read"] }, origin()),
      async () => ({ roles: await roles(), links: await links() }),
    );
    await rolledBack(() => deleteRole(admin, { roleId }, origin()), roles);
    const [first] = await menuItems();
    const positions = () => db().selectFrom("menu_item").select(["id", "position"]).orderBy("id").execute();
    await rolledBack(() => moveMenuItem(admin, { id: first!.id, direction: "down" }, origin()), positions);
  });

  it("auth: an invitation is not issued, nor cancelled, without its audit row; nor a profile or password change", async () => {
    const admin = await actorFor(["super_admin"]);
    const tokens = () => db().selectFrom("user_token").select(["id", "used_at"]).orderBy("id").execute();
    const userRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "user")
      .executeTakeFirstOrThrow();
    await rolledBack(
      () => inviteUser(admin, { email: "atomic-invite@example.test", roleIds: [userRole.id] }, origin()),
      tokens,
    );
    const id = randomUUID();
    await db()
      .insertInto("user_token")
      .values({
        id,
        user_id: null,
        kind: "invite",
        token_hash: randomUUID(),
        data: JSON.stringify({ email: "pending@example.test", roleIds: [], invitedBy: admin.id }),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        used_at: null,
        created_at: now(),
      })
      .execute();
    await rolledBack(() => cancelInvitation(admin, { id }, origin()), tokens);

    const me = await actorFor(["user"]);
    const mine = async () => ({
      row: await db()
        .selectFrom("user")
        .select(["name", "password_hash"])
        .where("id", "=", me.id)
        .executeTakeFirst(),
      sessions: await sessionsOf(me.id),
    });
    await rolledBack(() => updateProfile(me, { name: "New Name" }, origin()), mine);
    await rolledBack(
      () =>
        changePassword(
          me,
          { currentPassword: "correct horse battery", newPassword: "another long phrase" },
          origin(),
        ),
      mine,
    );
    await sessionCookieFor(me.id); // a second session, for "sign out the others"
    await rolledBack(() => revokeMySessions(me, "others", origin()), mine);
  });

  it("settings: no value changes without its audit row", async () => {
    const admin = await actorFor(["super_admin"]);
    await rolledBack(
      () =>
        applySettingsChanges(
          admin,
          { changes: [{ key: "APP_NAME", kind: "set", value: "Atomic" }] },
          origin(),
        ),
      () => describeSystemConfig(admin),
    );
  });

  it("notifications: a broadcast reaches nobody without its audit row", async () => {
    const admin = await actorFor(["super_admin"]);
    const rows = async () => ({
      broadcasts: await db().selectFrom("broadcast").select("id").execute(),
      notifications: await db().selectFrom("notification").select("id").execute(),
    });
    await rolledBack(
      () =>
        sendBroadcast(
          admin,
          { title: "T", message: "M", level: "info", link: null, audience: { kind: "all" }, email: false },
          origin(),
        ),
      rows,
    );
  });
});
