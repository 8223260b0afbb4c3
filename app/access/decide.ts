// The one decision (decision 044): every guard, every list filter and the "why" panel come from
// decide(), so what the product does and what it says it does cannot drift apart. Pure: the caller
// brings the grants (from the session or one query) and the target's teams.

/** What a grant within a team can give: people and teams there, and their audit rows. */
export const SCOPABLE = new Set([
  "user.read",
  "user.write",
  "user.update",
  "user.delete",
  "team.read",
  "team.write",
  "log.read",
]);

export type GrantRole = {
  id: string;
  name: string;
  label: string;
  all: boolean;
  permissions: ReadonlySet<string>;
};

export type Grant = {
  id?: string;
  role: GrantRole;
  team: { id: string; name?: string } | null;
  expiresAt: string | null;
};

export type DecisionSubject = {
  /** A disabled account holds nothing, whatever its grants say. */
  active: boolean;
  grants: readonly Grant[];
};

/** No target: held anywhere (a page that then lists what is in scope). */
export type DecisionTarget =
  | { kind: "user"; id: string; teamIds: readonly string[] }
  | { kind: "team"; id: string }
  | undefined;

export type Blocker = "disabled" | "not_granted" | "out_of_scope" | "global_only" | "expired";

export type Decision = {
  allowed: boolean;
  permission: string;
  superAdmin: boolean;
  /** The live grants that give it here (none when refused). */
  grants: Grant[];
  blockers: Blocker[];
};

function isLive(grant: Grant, at: number): boolean {
  return grant.expiresAt === null || Date.parse(grant.expiresAt) > at;
}

function gives(grant: Grant, permission: string): boolean {
  if (grant.role.all) return grant.team === null;
  if (!grant.role.permissions.has(permission)) return false;
  return grant.team === null || SCOPABLE.has(permission);
}

function reaches(teamId: string, target: DecisionTarget): boolean {
  if (!target) return true;
  return target.kind === "team" ? target.id === teamId : target.teamIds.includes(teamId);
}

export function decide(
  subject: DecisionSubject,
  permission: string,
  target?: DecisionTarget,
  at: number = Date.now(),
): Decision {
  const live = subject.grants.filter((g) => isLive(g, at));
  const superAdmin = subject.active && live.some((g) => g.role.all && g.team === null);
  const giving = live.filter((g) => gives(g, permission) && (g.team === null || reaches(g.team.id, target)));
  const blockers: Blocker[] = [];
  if (!subject.active) blockers.push("disabled");
  if (giving.length === 0) {
    if (live.some((g) => g.team !== null && gives(g, permission))) blockers.push("out_of_scope");
    else if (live.some((g) => g.team !== null && g.role.permissions.has(permission)))
      blockers.push("global_only");
    if (subject.grants.some((g) => !isLive(g, at) && gives(g, permission))) blockers.push("expired");
    if (blockers.length === 0 || (blockers.length === 1 && blockers[0] === "disabled"))
      blockers.push("not_granted");
  }
  const allowed = subject.active && giving.length > 0;
  return { allowed, permission, superAdmin, grants: allowed ? giving : [], blockers };
}

/** The teams in which `permission` is held by scoped grants alone; null when held over everyone. */
export function scopeOf(
  subject: DecisionSubject,
  permission: string,
  at: number = Date.now(),
): string[] | null {
  if (!subject.active) return [];
  const teams = new Set<string>();
  for (const g of subject.grants) {
    if (!isLive(g, at) || !gives(g, permission)) continue;
    if (g.team === null) return null;
    teams.add(g.team.id);
  }
  return [...teams];
}
