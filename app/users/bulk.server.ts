import { can } from "../access/check";
import { liveGlobal } from "../access/grant-rows.server";
import type { PermissionKey } from "../access/permissions";
import { inReach, mayAnywhere, reachOf } from "../access/reach.server";
import { roleGrants } from "../access/role-cache.server";
import { type Impact, simulate } from "../access/simulate.server";
import type { AuditedActor } from "../audit/actor";
import type { AuditOrigin } from "../audit/audit.server";
import { db } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import type { Message } from "../i18n/message";
import { joinTeam } from "../teams/teams.server";
import { listUsers, type UserListQuery } from "./list.server";
import { type RoleChangeMode, rolesAfter } from "./role-change";
import { changeUserRole, changeUserRoles, deleteUser, setUserStatus } from "./users.server";

// For "all matching" the server finds the people from the page's own address: the browser never sends that list of ids.

export const BULK_ACTIONS = [
  "enable",
  "disable",
  "delete",
  "add-role",
  "remove-role",
  "change-roles",
  "add-to-team",
] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export const BULK_PERMISSION: Record<BulkAction, PermissionKey> = {
  enable: "user.update",
  disable: "user.update",
  delete: "user.delete",
  "add-role": "user.update",
  "remove-role": "user.update",
  "change-roles": "user.update",
  "add-to-team": "team.write",
};

export type BulkInput = {
  action: BulkAction;
  roleId?: string;
  teamId?: string;
  /** "change-roles": how, and which. */
  mode?: RoleChangeMode;
  roleIds?: string[];
};
export type BulkResult = { done: number; unchanged: number; refused: Message[]; changed: string[] };

/** More become a users.bulk task with progress. */
export const BULK_INLINE_MAX = 100;
/** A wider act asks for a narrower filter. */
export const BULK_MATCHING_MAX = 10_000;
const WALK_PAGE = 100;

export type UserFilter = Pick<UserListQuery, "q" | "role" | "status" | "verified" | "created">;

export function filterOf(q: UserListQuery): UserFilter {
  return { q: q.q, role: q.role, status: q.status, verified: q.verified, created: q.created };
}

/**
 * With the list's own query, so "matching" means exactly what the list shows; null past `max`.
 * `teams`: the actor's reach (null: everyone).
 */
export async function matchingUserIds(
  filter: UserFilter,
  max = BULK_MATCHING_MAX,
  teams: string[] | null = null,
): Promise<string[] | null> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listUsers(
      {
        ...filter,
        sort: "created_at",
        dir: "desc",
        size: WALK_PAGE as UserListQuery["size"],
        after,
        before: undefined,
      },
      teams,
    );
    ids.push(...page.rows.map((r) => r.id));
    if (ids.length > max) return null;
    if (!page.next) return ids;
    after = page.next;
  }
}

/**
 * Held within a team, enabling, disabling and deleting act on that team's people (decision 044);
 * role acts give and take grants over everyone, and adding to a team widens a lead's reach, so
 * both need the permission over everyone.
 */
const SCOPED_ACTS = new Set<BulkAction>(["enable", "disable", "delete"]);

/**
 * Null: everyone; else the teams whose people the act may touch: those the list shows the actor
 * (user.read) and, for an act that follows scope, those its own permission reaches.
 */
export function bulkReach(actor: AuditedActor, action: BulkAction): string[] | null {
  const read = reachOf(actor, "user.read");
  const act = SCOPED_ACTS.has(action) ? reachOf(actor, BULK_PERMISSION[action]) : null;
  if (read === null) return act;
  if (act === null) return read;
  return read.filter((team) => act.includes(team));
}

/** Of `ids`, those the act may touch (bulkReach's people). */
async function reachedBy(actor: AuditedActor, action: BulkAction, ids: string[]): Promise<Set<string>> {
  const read = await inReach(actor, "user.read", ids);
  if (!SCOPED_ACTS.has(action)) return read;
  const act = await inReach(actor, BULK_PERMISSION[action], [...read]);
  return act;
}

export async function checkBulk(actor: AuditedActor, input: BulkInput): Promise<void> {
  const held = SCOPED_ACTS.has(input.action) ? mayAnywhere : can;
  // user.read too: the task path has no page loader in front of it.
  if (!mayAnywhere(actor, "user.read") || !held(actor, BULK_PERMISSION[input.action]))
    throw new RuleViolation("users.bulk.notAllowed");
  if (input.action === "add-role" || input.action === "remove-role") {
    if (!input.roleId || !(await roleGrants()).has(input.roleId)) throw new NotFound("users.bulk.noRole");
  }
  if (input.action === "change-roles") {
    const grants = await roleGrants();
    const roleIds = input.roleIds ?? [];
    // Replacing with none is a choice (the dialog warns); adding or removing none is not.
    if (
      !input.mode ||
      (input.mode !== "replace" && roleIds.length === 0) ||
      !roleIds.every((r) => grants.has(r))
    )
      throw new NotFound("users.bulk.noRole");
  }
  if (input.action === "add-to-team") {
    const team = input.teamId
      ? await db().selectFrom("team").select("id").where("id", "=", input.teamId).executeTakeFirst()
      : undefined;
    if (!team) throw new NotFound("teams.notFound");
  }
}

async function actOn(
  actor: AuditedActor,
  id: string,
  input: BulkInput,
  origin: AuditOrigin,
): Promise<boolean> {
  switch (input.action) {
    case "delete":
      await deleteUser(actor, { id }, origin);
      return true;
    case "disable":
    case "enable": {
      const status = input.action === "disable" ? "disabled" : "active";
      const now = await db().selectFrom("user").select("status").where("id", "=", id).executeTakeFirst();
      if (!now) throw new NotFound("users.notFound");
      if (now.status === status) return false;
      await setUserStatus(actor, { id, status }, origin);
      return true;
    }
    case "add-role":
    case "remove-role":
      return changeUserRole(
        actor,
        { id, roleId: input.roleId!, change: input.action === "add-role" ? "add" : "remove" },
        origin,
      );
    case "change-roles":
      return changeUserRoles(actor, { id, mode: input.mode!, roleIds: input.roleIds ?? [] }, origin);
    case "add-to-team": {
      const exists = await db().selectFrom("user").select("id").where("id", "=", id).executeTakeFirst();
      if (!exists) throw new NotFound("users.notFound");
      return joinTeam(actor, { teamId: input.teamId!, userId: id }, origin);
    }
  }
}

/** Of `ids`, those who hold no role now: a bulk change of roles says how many it left without access. */
export async function withoutRoles(ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const held = await db()
    .selectFrom("user_role")
    .select("user_id")
    .distinct()
    .where("user_id", "in", ids)
    .where(liveGlobal)
    .execute();
  return ids.length - held.length;
}

/** A rule that refuses one person does not stop the others; each change commits with its own audit row. */
export async function bulkUsers(
  actor: AuditedActor,
  input: BulkInput & { ids: string[] },
  origin: AuditOrigin,
  progress?: (done: number) => void,
): Promise<BulkResult> {
  await checkBulk(actor, input);
  const result: BulkResult = { done: 0, unchanged: 0, refused: [], changed: [] };
  // Out of reach is as good as gone: skipped as a missing person is, never named as refused.
  const reached = await reachedBy(actor, input.action, input.ids);
  // Viewing as someone, their own record is theirs alone (decision 021).
  const viewedAs = (actor as { impersonator?: unknown }).impersonator ? actor.id : null;
  for (const [i, id] of input.ids.entries()) {
    try {
      if (!reached.has(id)) continue;
      if (id === viewedAs) throw new RuleViolation("auth.impersonating");
      if (await actOn(actor, id, input, origin)) {
        result.done++;
        result.changed.push(id);
      } else result.unchanged++;
    } catch (error) {
      if (error instanceof NotFound) continue;
      if (!(error instanceof RuleViolation)) throw error;
      result.refused.push(error.said);
    } finally {
      progress?.(i + 1);
    }
  }
  return result;
}

/** "Change roles" previews at most this many people (the simulate API's own limit of changes is 200 too). */
export const ROLE_PREVIEW_MAX = 200;

/**
 * What "Change roles" would do to these people's access, from the same rolesAfter() the save
 * applies and the same simulate() as the matrix's preview (decision 044). Writes nothing.
 */
export async function previewRoleChange(
  actor: AuditedActor,
  chosen: string[],
  change: { mode: RoleChangeMode; roleIds: string[] },
): Promise<Impact> {
  const roles = await roleGrants();
  // Out of sight or no such person: left out unnamed, as the act would skip them.
  const reached = await reachedBy(actor, "change-roles", chosen);
  const existing = reached.size
    ? await db()
        .selectFrom("user")
        .select("id")
        .where("id", "in", [...reached])
        .execute()
    : [];
  const ids = existing.map((u) => u.id);
  const rows = ids.length
    ? await db()
        .selectFrom("user_role")
        .select(["user_id", "role_id"])
        .where("user_id", "in", ids)
        .where(liveGlobal)
        .execute()
    : [];
  const held = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const r of rows) held.get(r.user_id)?.push(r.role_id);
  const changes: Parameters<typeof simulate>[0]["changes"] = [];
  for (const [user, before] of held) {
    const after = rolesAfter(before, change);
    for (const id of after.filter((r) => !before.includes(r))) {
      const role = roles.get(id);
      if (role) changes.push({ op: "grant", user, role: role.name });
    }
    for (const id of before.filter((r) => !after.includes(r))) {
      const role = roles.get(id);
      if (role) changes.push({ op: "revoke", user, role: role.name });
    }
  }
  return changes.length ? simulate({ changes }) : { gains: [], losses: [], gainsTotal: 0, lossesTotal: 0 };
}
