import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { z } from "zod";
import type { Database } from "../../db/schema";
import { liveGlobal } from "../access/grant-rows.server";
import {
  assertCanManageUser,
  assertNotLastSuperAdmin,
  assertNotSelf,
  assertRoleChangeAllowed,
} from "../access/rules.server";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { hashPassword } from "../auth/password.server";
import { requestPasswordReset } from "../auth/password-reset.server";
import { resendVerification } from "../auth/registration.server";
import { invalidateSessions, type SessionUser, sessionHandle } from "../auth/session.server";
import { endSessions, recheckViews } from "../auth/session-end.server";
import { spendTokens } from "../auth/tokens.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { closeStreamsOf } from "../events/stream.server";
import type { MailOutcome } from "../mail/try-send.server";
import { type RoleChange, rolesAfter, sameRoles } from "./role-change";
import type { createUserSchema, updateUserSchema } from "./user-schemas";

async function writeRoles(
  trx: Kysely<Database>,
  userId: string,
  roleIds: string[],
  opts: { replace: boolean },
) {
  if (opts.replace)
    await trx.deleteFrom("user_role").where("user_id", "=", userId).where("team_id", "is", null).execute();
  if (roleIds.length) {
    await trx
      .insertInto("user_role")
      .values(roleIds.map((role_id) => ({ user_id: userId, role_id })))
      .execute();
  }
}

async function roleIdsOf(userId: string): Promise<string[]> {
  const rows = await db()
    .selectFrom("user_role")
    .select("role_id")
    .where("user_id", "=", userId)
    .where(liveGlobal)
    .execute();
  return rows.map((r) => r.role_id);
}

async function emailTaken(email: string, exceptId?: string) {
  let q = db().selectFrom("user").select("id").where("email", "=", email);
  if (exceptId) q = q.where("id", "!=", exceptId);
  return Boolean(await q.executeTakeFirst());
}

export async function getUser(id: string) {
  const user = await db()
    .selectFrom("user")
    .leftJoin("directory", "directory.id", "user.directory_id")
    .select([
      "user.id",
      "user.name",
      "user.email",
      "user.email_verified",
      "user.status",
      "user.last_login_at",
      "user.created_at",
      "user.updated_at",
      "user.department",
      "directory.name as directoryName",
      "user.directory_deleted_at",
    ])
    .where("user.id", "=", id)
    .executeTakeFirst();
  if (!user) return null;
  const { directoryName, directory_deleted_at, ...fields } = user;
  const managedBy = directory_deleted_at ? null : directoryName;
  return { ...fields, managedBy, roleIds: await roleIdsOf(id) };
}

/** A directory would overwrite these at its next sync; disabling stays open to lock someone out at once. */
function assertNotManaged(user: { managedBy: string | null }) {
  if (user.managedBy) throw new RuleViolation("directory.managed", { directory: user.managedBy });
}

export async function createUser(
  actor: SessionUser,
  input: z.infer<typeof createUserSchema>,
  origin: AuditOrigin,
) {
  if (await emailTaken(input.email)) throw new InvalidInput("users.emailTaken", "email");
  const id = randomUUID();
  await assertRoleChangeAllowed(actor, id, [], input.roles);
  const ts = now();
  const passwordHash = await hashPassword(input.password);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("user")
        .values({
          id,
          name: input.name,
          email: input.email,
          email_verified: 1,
          must_change_password: 1,
          password_hash: passwordHash,
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      await writeRoles(trx, id, input.roles, { replace: false });
      await audit(
        origin,
        {
          action: "user.create",
          actor,
          target: { type: "user", id },
          details: { after: { name: input.name, email: input.email, roles: input.roles } },
        },
        trx,
      );
    });
  return id;
}

const MAILED_LINKS = ["set-password", "reset-password", "verify-email", "email-change"] as const;

export type UpdateUserInput = { id: string } & z.infer<typeof updateUserSchema>;

/** Answers the roles the edit took away (what an Undo may give back). */
export async function updateUser(
  actor: SessionUser,
  input: UpdateUserInput,
  origin: AuditOrigin,
): Promise<AccountChange> {
  const { id } = input;
  const before = await existingUser(id);
  await assertCanManageUser(actor, id);
  assertNotManaged(before);
  if (await emailTaken(input.email, id)) throw new InvalidInput("users.emailTaken", "email");
  await assertRoleChangeAllowed(actor, id, before.roleIds, input.roles);
  const emailChanged = input.email !== before.email;
  const change: AccountChange = {
    name: input.name !== before.name,
    email: emailChanged,
    addedRoles: [...new Set(input.roles)].filter((r) => !before.roleIds.includes(r)),
    removedRoles: before.roleIds.filter((r) => !input.roles.includes(r)),
  };
  // A save that changes nothing writes nothing: no audit row, no sessions rechecked.
  if (!change.name && !change.email && !change.addedRoles.length && !change.removedRoles.length)
    return change;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("user")
        .set({
          name: input.name,
          email: input.email,
          updated_at: now(),
          ...(emailChanged ? { email_verified: 0 } : {}),
        })
        .where("id", "=", id)
        .execute();
      // A link mailed to the old address is no proof of the new one.
      if (emailChanged) await spendTokens(id, MAILED_LINKS, trx);
      await writeRoles(trx, id, input.roles, { replace: true });
      await audit(
        origin,
        {
          action: "user.update",
          actor,
          target: { type: "user", id },
          details: {
            before: { name: before.name, email: before.email, roles: before.roleIds },
            after: { name: input.name, email: input.email, roles: input.roles },
          },
        },
        trx,
      );
    });
  await invalidateSessions();
  await recheckViews(id);
  return change;
}

/** What an account edit changed, so its toast can say so. */
export type AccountChange = { name: boolean; email: boolean; addedRoles: string[]; removedRoles: string[] };

/** False when nothing changed, so nothing is written or audited. */
export function changeUserRole(
  actor: AuditedActor,
  input: { id: string; roleId: string; change: "add" | "remove" },
  origin: AuditOrigin,
): Promise<boolean> {
  return changeUserRoles(actor, { id: input.id, mode: input.change, roleIds: [input.roleId] }, origin);
}

/** Add, remove or replace roles under the same rules as an edit; false when nothing changed. */
export async function changeUserRoles(
  actor: AuditedActor,
  input: { id: string } & RoleChange,
  origin: AuditOrigin,
): Promise<boolean> {
  const { id } = input;
  const before = await existingUser(id);
  await assertCanManageUser(actor, id);
  assertNotManaged(before);
  const after = rolesAfter(before.roleIds, input);
  if (sameRoles(before.roleIds, after)) return false;
  await assertRoleChangeAllowed(actor, id, before.roleIds, after);
  // Only the difference is written: a change of other roles made meanwhile (another admin's bulk
  // act, a grant a replace was not allowed to see) stays as it is.
  const added = after.filter((r) => !before.roleIds.includes(r));
  const removed = before.roleIds.filter((r) => !after.includes(r));
  await db()
    .transaction()
    .execute(async (trx) => {
      if (added.length)
        await trx
          .insertInto("user_role")
          .values(added.map((role_id) => ({ user_id: id, role_id })))
          // Only an expired global grant can be there still: adding the role renews it.
          .onConflict((oc) =>
            oc.columns(["user_id", "role_id"]).where("team_id", "is", null).doUpdateSet({ expires_at: null }),
          )
          .execute();
      if (removed.length)
        await trx
          .deleteFrom("user_role")
          .where("user_id", "=", id)
          .where("role_id", "in", removed)
          .where("team_id", "is", null)
          .execute();
      await trx.updateTable("user").set({ updated_at: now() }).where("id", "=", id).execute();
      await audit(
        origin,
        {
          action: "user.update",
          actor,
          target: { type: "user", id },
          details: { before: { roles: before.roleIds }, after: { roles: after } },
        },
        trx,
      );
    });
  await invalidateSessions();
  await recheckViews(id);
  return true;
}

/** False, with nothing written, when any of them is held again meanwhile. */
export async function restoreRoles(
  actor: AuditedActor,
  input: { id: string; roleIds: string[] },
  origin: AuditOrigin,
): Promise<boolean> {
  const { id, roleIds } = input;
  const before = await existingUser(id);
  await assertCanManageUser(actor, id);
  assertNotManaged(before);
  if (roleIds.some((r) => before.roleIds.includes(r))) return false;
  const after = [...before.roleIds, ...roleIds];
  await assertRoleChangeAllowed(actor, id, before.roleIds, after);
  await db()
    .transaction()
    .execute(async (trx) => {
      await writeRoles(trx, id, roleIds, { replace: false });
      await trx.updateTable("user").set({ updated_at: now() }).where("id", "=", id).execute();
      await audit(
        origin,
        {
          action: "user.role_removal.undone",
          actor,
          target: { type: "user", id },
          details: { before: { roles: before.roleIds }, after: { roles: after } },
        },
        trx,
      );
    });
  await invalidateSessions();
  await recheckViews(id);
  return true;
}

async function existingUser(id: string) {
  const user = await getUser(id);
  if (!user) throw new NotFound("users.notFound");
  return user;
}

export async function setUserStatus(
  actor: AuditedActor,
  input: { id: string; status: "active" | "disabled"; undo?: boolean },
  origin: AuditOrigin,
) {
  const { id, status } = input;
  const action = input.undo ? "user.disable.undone" : status === "disabled" ? "user.disable" : "user.enable";
  const before = await existingUser(id);
  await assertCanManageUser(actor, id);
  if (status === "disabled") {
    assertNotSelf(actor.id, id, "disable");
    await assertNotLastSuperAdmin(id, "disabled");
  } else assertNotManaged(before);
  const write = async (trx: Kysely<Database>) => {
    await trx.updateTable("user").set({ status, updated_at: now() }).where("id", "=", id).execute();
    await audit(
      origin,
      {
        action,
        actor,
        target: { type: "user", id },
        details: { before: { status: before.status }, after: { status } },
      },
      trx,
    );
  };
  if (status === "disabled") {
    // Then the streams under this id no session of theirs opened (API tokens', a View as of them).
    await endSessions({ userId: id }, write);
    closeStreamsOf(id);
  } else {
    await db().transaction().execute(write);
    await invalidateSessions();
  }
}

export async function deleteUser(actor: AuditedActor, input: { id: string }, origin: AuditOrigin) {
  const { id } = input;
  const before = await existingUser(id);
  assertNotSelf(actor.id, id, "delete");
  await assertCanManageUser(actor, id);
  await assertNotLastSuperAdmin(id, "deleted");
  await endSessions({ userId: id }, async (trx) => {
    await trx.deleteFrom("user").where("id", "=", id).execute();
    await audit(
      origin,
      {
        action: "user.delete",
        actor,
        target: { type: "user", id },
        details: { before: { name: before.name, email: before.email, roles: before.roleIds } },
      },
      trx,
    );
  });
  closeStreamsOf(id);
}

/** By handle: the page never sees session ids. */
export async function revokeSession(
  actor: SessionUser,
  input: { userId: string; handle: string },
  origin: AuditOrigin,
) {
  const { userId, handle } = input;
  await assertCanManageUser(actor, userId);
  const rows = await db().selectFrom("session").select("id").where("user_id", "=", userId).execute();
  const match = rows.find((r) => sessionHandle(r.id) === handle);
  if (!match) throw new NotFound("users.sessionGone");
  await endSessions({ userId, ids: [match.id] }, async (trx) => {
    await audit(origin, { action: "session.revoke", actor, target: { type: "user", id: userId } }, trx);
  });
}

/** The link's token is issued by the mail job, so the audit row records the sending once it succeeded. */
export async function sendAccountLink(
  actor: SessionUser,
  input: { id: string; kind: "reset" | "verification" },
  origin: AuditOrigin,
): Promise<
  { ok: true; email: string; mail: MailOutcome | null } | { ok: false; reason: "already_verified" }
> {
  const user = await existingUser(input.id);
  await assertCanManageUser(actor, user.id);
  if (input.kind === "reset") {
    const mail = await requestPasswordReset(origin, user.email);
    await audit(origin, { action: "user.password_reset", actor, target: { type: "user", id: user.id } });
    return { ok: true, email: user.email, mail };
  }
  if (user.email_verified) return { ok: false, reason: "already_verified" };
  return { ok: true, email: user.email, mail: await resendVerification(origin, user.email) };
}
