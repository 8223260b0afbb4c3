import type { Actor } from "../audit/actor";
import { db } from "../db.server";
import { InvalidInput, RuleViolation } from "../domain-errors";
import { decide, type Grant, SCOPABLE } from "./decide";
import { live, liveGlobal } from "./grant-rows.server";
import { reachOf, subjectOf } from "./reach.server";
import { type RoleGrant, roleGrants } from "./role-cache.server";

type Subject = Pick<Actor, "id" | "isSuperAdmin" | "permissions"> & { grants?: readonly Grant[] };

/** Every permission of the role, over everyone: what giving it globally asks (escalation rule). */
function holdsAll(actor: Subject, role: RoleGrant): boolean {
  if (actor.isSuperAdmin) return true;
  if (role.all) return false;
  for (const p of role.permissions) if (reachOf(actor, p) !== null) return false;
  return true;
}

/** What deciding an access request asks: every permission of the role in the scope it would be given. */
export function holdsRoleThere(actor: Subject, role: RoleGrant, teamId: string | null): boolean {
  return teamId ? holdsAllInTeam(actor, role, teamId) : holdsAll(actor, role);
}

/**
 * Deciding on someone's grant of a role (an access request, a review's item): roles.manage over
 * everyone and every permission of the role in the grant's scope; never on one's own.
 */
export function mayDecideGrant(
  actor: Subject,
  grant: { user_id: string; team_id: string | null },
  role: RoleGrant | undefined,
): boolean {
  if (!role || actor.id === grant.user_id) return false;
  if (!actor.isSuperAdmin && !actor.permissions.has("roles.manage")) return false;
  return holdsRoleThere(actor, role, grant.team_id);
}

/**
 * Giving (or taking) a role within a team gives its scopable part there: the actor must reach the
 * team's people and hold that part there.
 */
export function holdsAllInTeam(actor: Subject, role: RoleGrant, teamId: string): boolean {
  if (role.all) return false;
  if (actor.isSuperAdmin) return true;
  const subject = subjectOf(actor);
  const team = { kind: "team" as const, id: teamId };
  if (!decide(subject, "user.update", team).allowed) return false;
  for (const p of role.permissions) if (SCOPABLE.has(p) && !decide(subject, p, team).allowed) return false;
  return true;
}

/**
 * When the actor's authority to give this role there ends: the latest end among the grants that
 * give each needed permission, the earliest of those; null while none of it ends. A grant given on
 * an authority that ends must end by then, or a lead could hand on what they are about to lose.
 */
export function authorityEnds(actor: Subject, role: RoleGrant, teamId: string | null): string | null {
  const subject = subjectOf(actor);
  const where = teamId ? { kind: "team" as const, id: teamId } : undefined;
  const needed = role.all
    ? ["user.update"]
    : teamId
      ? ["user.update", ...[...role.permissions].filter((p) => SCOPABLE.has(p))]
      : ["user.update", ...role.permissions];
  let ends: string | null = null;
  for (const p of needed) {
    const giving = decide(subject, p, where).grants.filter((g) => teamId !== null || g.team === null);
    if (giving.length === 0 || giving.some((g) => g.expiresAt === null)) continue;
    const latest = giving
      .map((g) => g.expiresAt!)
      .sort()
      .at(-1)!;
    if (ends === null || Date.parse(latest) < Date.parse(ends)) ends = latest;
  }
  return ends;
}

/** A grant the target holds, judged where it gives: over everyone, or within its team. */
function dominates(actor: Subject, role: RoleGrant, teamId: string | null): boolean {
  return teamId === null ? holdsAll(actor, role) : holdsAllInTeam(actor, role, teamId);
}

export async function assertRoleChangeAllowed(
  actor: Subject,
  targetUserId: string,
  before: string[],
  after: string[],
) {
  const grants = await roleGrants();
  const added = after.filter((r) => !before.includes(r));
  const removed = before.filter((r) => !after.includes(r));
  for (const id of [...added, ...removed]) {
    const role = grants.get(id);
    if (!role) throw new InvalidInput("validation.rolesFromList", "roles");
    if (role.all && !actor.isSuperAdmin) throw new RuleViolation("access.superAdminGrant");
  }
  // Taking a role away is as much a change of it as giving it: only by one who holds it all.
  for (const id of [...added, ...removed]) {
    const role = grants.get(id)!;
    if (!holdsAll(actor, role)) {
      throw new RuleViolation("access.grantRole", { role: role.label });
    }
  }
  if (removed.length > 0 && actor.id === targetUserId) throw new RuleViolation("access.removeOwnRoles");
  if (removed.some((id) => grants.get(id)?.all)) await assertNotLastSuperAdmin(targetUserId, "demoted");
}

/** Not even its label: renaming `admin` to "Guest" would make others grant it unawares. */
export function assertMayEditRole(actor: Subject, role: RoleGrant) {
  if (!mayEditRole(actor, role)) throw new RuleViolation("access.changeRole", { role: role.label });
}

/** Holding everything the role grants (Super Admin's: a super admin). */
export function mayEditRole(actor: Subject, role: RoleGrant): boolean {
  return holdsAll(actor, role);
}

/** In the role order. */
export async function assignableRoles(actor: Subject): Promise<RoleGrant[]> {
  const grants = await roleGrants();
  return [...grants.values()].filter((r) => holdsAll(actor, r));
}

export async function superAdminRoleIds(): Promise<string[]> {
  return [...(await roleGrants()).values()].filter((r) => r.all).map((r) => r.id);
}

/** Active people holding Super Admin over everyone now: driven from the super admins' grants (few), never from every active person. */
export async function activeSuperAdminIds(): Promise<string[]> {
  const ids = await superAdminRoleIds();
  if (ids.length === 0) return [];
  const holders = await db()
    .selectFrom("user_role")
    .select("user_role.user_id as id")
    .distinct()
    .where("user_role.role_id", "in", ids)
    .where(liveGlobal)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("user")
          .select("user.id")
          .whereRef("user.id", "=", "user_role.user_id")
          .where("user.status", "=", "active"),
      ),
    )
    .execute();
  return holders.map((h) => h.id);
}

export async function assertNotLastSuperAdmin(userId: string, verb: "deleted" | "disabled" | "demoted") {
  const holders = await activeSuperAdminIds();
  if (holders.length === 1 && holders[0] === userId) {
    throw new RuleViolation(`access.lastSuperAdmin.${verb}`);
  }
}

export async function mayManageUser(actor: Subject, targetUserId: string): Promise<boolean> {
  return (await manageableUsers(actor, [targetUserId])).has(targetUserId);
}

export async function manageableUsers(actor: Subject, userIds: string[]): Promise<Set<string>> {
  const ids = new Set(userIds);
  if (actor.isSuperAdmin || ids.size === 0) return ids;
  const [grants, rows] = await Promise.all([
    roleGrants(),
    db()
      .selectFrom("user_role")
      .select(["user_id", "role_id", "team_id"])
      .where("user_id", "in", [...ids])
      // Within a team too: someone who is an admin anywhere is managed only by one who holds as much there.
      .where(live)
      .execute(),
  ]);
  for (const { user_id, role_id, team_id } of rows) {
    const role = grants.get(role_id);
    if (user_id !== actor.id && role && !dominates(actor, role, team_id)) ids.delete(user_id);
  }
  return ids;
}

/** Otherwise an admin could take over a super admin by changing its email and asking for a reset link. */
export async function assertCanManageUser(actor: Subject, targetUserId: string) {
  if (!(await mayManageUser(actor, targetUserId))) throw new RuleViolation("access.manageUser");
}

export function assertNotSelf(actorId: string, targetId: string, verb: "delete" | "disable") {
  if (actorId === targetId) throw new RuleViolation(`access.self.${verb}`);
}
