import { db } from "../db.server";
import { type DecisionSubject, type DecisionTarget, decide, type Grant, scopeOf } from "./decide";

// Who an actor reaches with a permission, from decide() (decision 044): over everyone, or over the
// members of the teams where a grant within a team gives it. Pages and actions ask here; what is
// out of reach answers 404 (never 403, which would say the person exists).

export type Subject = {
  id?: string;
  isSuperAdmin: boolean;
  permissions: ReadonlySet<string>;
  /** A session's or a token's; absent for a script's actor, whose permissions are global. */
  grants?: readonly Grant[];
};

export function subjectOf(actor: Subject): DecisionSubject {
  if (actor.grants) return { active: true, grants: actor.grants };
  const role = {
    id: "actor",
    name: "actor",
    label: "actor",
    all: actor.isSuperAdmin,
    permissions: actor.permissions,
  };
  return { active: true, grants: [{ role, team: null, expiresAt: null }] };
}

/** Held over everyone or within some team: the page opens, and then lists only what is in reach. */
export function mayAnywhere(actor: Subject, permission: string): boolean {
  return decide(subjectOf(actor), permission).allowed;
}

/** Null: over everyone; else the teams (possibly none). */
export function reachOf(actor: Subject, permission: string): string[] | null {
  return scopeOf(subjectOf(actor), permission);
}

export async function teamIdsOf(userIds: readonly string[]): Promise<Map<string, string[]>> {
  const teams = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return teams;
  const rows = await db()
    .selectFrom("team_member")
    .select(["user_id", "team_id"])
    .where("user_id", "in", [...userIds])
    .execute();
  for (const r of rows) teams.get(r.user_id)?.push(r.team_id);
  return teams;
}

export function userTarget(id: string, teamIds: readonly string[]): DecisionTarget {
  return { kind: "user", id, teamIds };
}

/** Of `userIds`, those `permission` reaches. */
export async function inReach(
  actor: Subject,
  permission: string,
  userIds: readonly string[],
): Promise<Set<string>> {
  const reach = reachOf(actor, permission);
  if (reach === null) return new Set(userIds);
  if (reach.length === 0 || userIds.length === 0) return new Set();
  const teams = await teamIdsOf(userIds);
  const subject = subjectOf(actor);
  return new Set(
    userIds.filter((id) => decide(subject, permission, userTarget(id, teams.get(id) ?? [])).allowed),
  );
}

export async function mayOnUser(actor: Subject, permission: string, userId: string): Promise<boolean> {
  return (await inReach(actor, permission, [userId])).has(userId);
}

export function mayOnTeam(actor: Subject, permission: string, teamId: string): boolean {
  return decide(subjectOf(actor), permission, { kind: "team", id: teamId }).allowed;
}
