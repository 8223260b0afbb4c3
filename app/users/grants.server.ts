import { randomUUID } from "node:crypto";
import { SCOPABLE } from "../access/decide";
import { mayOnTeam, mayOnUser, type Subject } from "../access/reach.server";
import { roleGrants } from "../access/role-cache.server";
import {
  assertRoleChangeAllowed,
  authorityEnds,
  holdsAllInTeam,
  mayManageUser,
} from "../access/rules.server";
import { type Impact, simulate } from "../access/simulate.server";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { invalidateSessions } from "../auth/session.server";
import { recheckViews } from "../auth/session-end.server";
import { db, now } from "../db.server";
import { Conflict, InvalidInput, NotFound, RuleViolation } from "../domain-errors";

// One person's grants, one at a time (GET/POST/DELETE /api/users/:id/roles, the team page's "grant
// a role in this team"). The user page's checkboxes stay whole-set edits of global roles
// (users.server.ts); both keep the same escalation rule, per scope (decision 044).

export type GrantView = {
  id: string;
  role: { id: string; name: string; label: string };
  team: { id: string; name: string } | null;
  expiresAt: string | null;
  grantedBy: string | null;
  grantedAt: string | null;
};

type Actor = AuditedActor & Subject;

/** Someone out of the actor's reach is "not found", as on every page (no oracle). */
async function reachableUser(actor: Actor, userId: string, permission: "user.read" | "user.update") {
  const user = await db()
    .selectFrom("user")
    .select(["id", "name", "directory_id", "directory_deleted_at"])
    .where("id", "=", userId)
    .executeTakeFirst();
  if (!user || !(await mayOnUser(actor, permission, userId))) throw new NotFound("users.notFound");
  return user;
}

/** A team the actor cannot see is answered as one that does not exist (no oracle for its id). */
function teamSeen(actor: Actor, teamId: string) {
  return mayOnTeam(actor, "team.read", teamId) || mayOnTeam(actor, "user.update", teamId);
}

/**
 * What a grant would give the person before it is made, from the same simulate() as the matrix's
 * preview: only what they do not hold already. The save still applies every rule; a preview writes nothing.
 */
export async function previewGrant(
  actor: Actor,
  userId: string,
  input: { role: string; team?: string },
): Promise<Impact> {
  await reachableUser(actor, userId, "user.update");
  const role = [...(await roleGrants()).values()].find((r) => r.name === input.role);
  if (!role || (role.all && input.team)) throw new InvalidInput("access.grant.roleUnknown", "role");
  if (input.team && !teamSeen(actor, input.team)) throw new InvalidInput("access.grant.teamUnknown", "team");
  return simulate({ changes: [{ op: "grant", user: userId, role: role.name, team: input.team }] });
}

export async function listGrants(actor: Actor, userId: string): Promise<GrantView[]> {
  await reachableUser(actor, userId, "user.read");
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .leftJoin("team", "team.id", "user_role.team_id")
    .select([
      "user_role.id",
      "role.id as role_id",
      "role.name as role_name",
      "role.label as role_label",
      "team.id as team_id",
      "team.name as team_name",
      "user_role.expires_at",
      "user_role.granted_by",
      "user_role.granted_at",
    ])
    .where("user_role.user_id", "=", userId)
    .execute();
  const order = [...(await roleGrants()).keys()];
  return rows
    .map((r) => ({
      id: r.id,
      role: { id: r.role_id, name: r.role_name, label: r.role_label },
      team: r.team_id ? { id: r.team_id, name: r.team_name ?? "" } : null,
      expiresAt: r.expires_at,
      grantedBy: r.granted_by,
      grantedAt: r.granted_at,
    }))
    .sort(
      (a, b) =>
        order.indexOf(a.role.id) - order.indexOf(b.role.id) ||
        (a.team?.name ?? "").localeCompare(b.team?.name ?? ""),
    );
}

export type GrantInput = { role: string; team?: string; expiresAt?: string };

export async function grantRole(
  actor: Actor,
  userId: string,
  input: GrantInput,
  origin: AuditOrigin,
): Promise<GrantView> {
  const user = await reachableUser(actor, userId, "user.update");
  const role = [...(await roleGrants()).values()].find((r) => r.name === input.role);
  if (!role) throw new InvalidInput("access.grant.roleUnknown", "role");
  const team = input.team
    ? await db().selectFrom("team").select(["id", "name"]).where("id", "=", input.team).executeTakeFirst()
    : null;
  // A team the actor cannot see answers as one that does not exist (no oracle).
  if (input.team && (!team || !teamSeen(actor, team.id)))
    throw new InvalidInput("access.grant.teamUnknown", "team");
  if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now())
    throw new InvalidInput("access.grant.expiresPast", "expiresAt");
  // One's own access is someone else's to change (and would outlive a grant that ends).
  if (actor.id === userId) throw new RuleViolation("access.grant.self");
  if (!(await mayManageUser(actor, userId))) throw new RuleViolation("access.manageUser");
  if (team) {
    if (role.all) throw new InvalidInput("access.grant.superAdminInTeam", "role");
    if (!holdsAllInTeam(actor, role, team.id))
      throw new RuleViolation("access.grantRole", { role: role.label });
    if (![...role.permissions].some((p) => SCOPABLE.has(p)))
      throw new InvalidInput("access.grant.nothingInTeam", "role", { role: role.label });
  } else {
    if (user.directory_id && !user.directory_deleted_at)
      throw new RuleViolation("access.grant.directoryOwned");
    await assertRoleChangeAllowed(actor, userId, [], [role.id]);
  }
  const ends = authorityEnds(actor, role, team?.id ?? null);
  if (ends && (!input.expiresAt || Date.parse(input.expiresAt) > Date.parse(ends)))
    throw new InvalidInput("access.grant.outlives", "expiresAt", { date: ends.slice(0, 10) });
  const grant = {
    id: randomUUID(),
    user_id: userId,
    role_id: role.id,
    team_id: team?.id ?? null,
    expires_at: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    granted_by: actor.id,
    granted_at: now(),
  };
  await db()
    .transaction()
    .execute(async (trx) => {
      // An expired grant of the same role and scope is replaced; a live one is a conflict.
      const same = trx
        .deleteFrom("user_role")
        .where("user_id", "=", userId)
        .where("role_id", "=", role.id)
        .where("expires_at", "<=", now());
      await (team ? same.where("team_id", "=", team.id) : same.where("team_id", "is", null)).execute();
      const inserted = await trx
        .insertInto("user_role")
        .values(grant)
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
        throw new Conflict("access.grant.held", { role: role.label });
      await trx.updateTable("user").set({ updated_at: now() }).where("id", "=", userId).execute();
      await audit(
        origin,
        {
          action: "user.role.grant",
          actor,
          target: { type: "user", id: userId },
          details: {
            grant: grant.id,
            role: role.name,
            team: team ? { id: team.id, name: team.name } : null,
            expiresAt: grant.expires_at,
          },
        },
        trx,
      );
    });
  await invalidateSessions();
  return {
    id: grant.id,
    role: { id: role.id, name: role.name, label: role.label },
    team: team ? { id: team.id, name: team.name } : null,
    expiresAt: grant.expires_at,
    grantedBy: actor.id,
    grantedAt: grant.granted_at,
  };
}

export async function revokeGrant(actor: Actor, userId: string, grantId: string, origin: AuditOrigin) {
  const user = await reachableUser(actor, userId, "user.update");
  const grant = (await listGrants(actor, userId)).find((g) => g.id === grantId);
  if (!grant) throw new NotFound("access.grant.gone");
  if (!(await mayManageUser(actor, userId))) throw new RuleViolation("access.manageUser");
  const role = (await roleGrants()).get(grant.role.id);
  if (!role) throw new NotFound("access.grant.gone");
  if (grant.team) {
    if (actor.id === userId) throw new RuleViolation("access.removeOwnRoles");
    if (!holdsAllInTeam(actor, role, grant.team.id))
      throw new RuleViolation("access.grantRole", { role: role.label });
  } else {
    if (user.directory_id && !user.directory_deleted_at)
      throw new RuleViolation("access.grant.directoryOwned");
    await assertRoleChangeAllowed(actor, userId, [role.id], []);
  }
  await db()
    .transaction()
    .execute(async (trx) => {
      const removed = await trx
        .deleteFrom("user_role")
        .where("id", "=", grantId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) throw new NotFound("access.grant.gone");
      await trx.updateTable("user").set({ updated_at: now() }).where("id", "=", userId).execute();
      await audit(
        origin,
        {
          action: "user.role.revoke",
          actor,
          target: { type: "user", id: userId },
          details: { grant: grantId, role: role.name, team: grant.team, expiresAt: grant.expiresAt },
        },
        trx,
      );
    });
  await invalidateSessions();
  await recheckViews(userId);
}

export type TeamGrantView = {
  id: string;
  user: { id: string; name: string };
  role: { id: string; name: string; label: string };
  expiresAt: string | null;
};

/** The grants within one team, by person (the team page's "Roles in this team"). */
export async function grantsInTeam(teamId: string): Promise<TeamGrantView[]> {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("user", "user.id", "user_role.user_id")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select([
      "user_role.id",
      "user.id as user_id",
      "user.name as user_name",
      "role.id as role_id",
      "role.name as role_name",
      "role.label as role_label",
      "user_role.expires_at",
    ])
    .where("user_role.team_id", "=", teamId)
    .orderBy("user.name")
    .orderBy("role.name")
    .limit(500)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    user: { id: r.user_id, name: r.user_name },
    role: { id: r.role_id, name: r.role_name, label: r.role_label },
    expiresAt: r.expires_at,
  }));
}

/** Who may be chosen in the team page's grant form: its members, by name (the first 200). */
export async function grantCandidates(teamId: string) {
  return (
    db()
      .selectFrom("team_member")
      .innerJoin("user", "user.id", "team_member.user_id")
      .select(["user.id", "user.name"])
      .where("team_member.team_id", "=", teamId)
      .where("user.status", "=", "active")
      // The team's members-by-name index: sorting every member of a large team was the bench's 36 ms.
      .orderBy("team_member.member_name")
      .orderBy("team_member.user_id")
      .limit(200)
      .execute()
  );
}
