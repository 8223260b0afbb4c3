import { sql } from "kysely";
import { db } from "../db.server";
import { type Blocker, type DecisionTarget, decide, type Grant, SCOPABLE } from "./decide";
import { grantsOfUsers, live } from "./grant-rows.server";
import { PERMISSION_KEYS } from "./permissions";
import { teamIdsOf, userTarget } from "./reach.server";
import { roleGrants } from "./role-cache.server";

// "Why" and "who can" (GET /api/access/explain, /api/access/who): the grants come from the
// database here, not from anyone's session, and go through the same decide() the guards use.

type GrantOut = {
  role: { id: string; name: string; label: string };
  team: { id: string; name: string } | null;
  expiresAt: string | null;
};

export type Explanation = {
  allowed: boolean;
  permission: string;
  superAdmin: boolean;
  grants: GrantOut[];
  blockers: Blocker[];
};

function out(g: Grant): GrantOut {
  return {
    role: { id: g.role.id, name: g.role.name, label: g.role.label },
    team: g.team ? { id: g.team.id, name: g.team.name ?? "" } : null,
    expiresAt: g.expiresAt,
  };
}

/** Null when the person does not exist. */
export async function explain(
  userId: string,
  permission: string,
  targetId?: string,
): Promise<Explanation | null> {
  const user = await db()
    .selectFrom("user")
    .select(["id", "status"])
    .where("id", "=", userId)
    .executeTakeFirst();
  if (!user) return null;
  const grants = (await grantsOfUsers([userId])).get(userId) ?? [];
  const target: DecisionTarget = targetId
    ? userTarget(targetId, (await teamIdsOf([targetId])).get(targetId) ?? [])
    : undefined;
  const decision = decide({ active: user.status === "active", grants }, permission, target);
  return { ...decision, grants: decision.grants.map(out) };
}

export type Holder = { id: string; name: string; email: string; superAdmin: boolean; grants: GrantOut[] };

/**
 * Everyone active who holds `permission` (over `teamId` when given: the global holders and those
 * holding it within that team), by name; the page of `limit` from `offset`, and the total.
 */
export async function whoCan(
  permission: string,
  opts: { teamId?: string; limit: number; offset: number },
): Promise<{ users: Holder[]; total: number }> {
  const roles = [...(await roleGrants()).values()];
  const giving = roles.filter((r) => r.all || r.permissions.has(permission)).map((r) => r.id);
  const scopable = SCOPABLE.has(permission);
  if (giving.length === 0) return { users: [], total: 0 };
  const allRoles = roles.filter((r) => r.all).map((r) => r.id);
  // Driven from the grants (few) into people by key: joined the other way it read every active person.
  const granted = db()
    .selectFrom("user_role")
    .select("user_role.user_id")
    .where("user_role.role_id", "in", giving)
    .where(live)
    .where((eb) => {
      // A grant within a team gives only a scopable permission, and never through an all-permissions role.
      const global = eb("user_role.team_id", "is", null);
      if (!scopable) return global;
      const inTeam = opts.teamId
        ? eb("user_role.team_id", "=", opts.teamId)
        : eb("user_role.team_id", "is not", null);
      const notAll = allRoles.length ? eb("user_role.role_id", "not in", allRoles) : sql<boolean>`1 = 1`;
      return eb.or([global, eb.and([inTeam, notAll])]);
    });
  const holders = db().selectFrom("user").where("user.status", "=", "active").where("user.id", "in", granted);
  const [count, page] = await Promise.all([
    holders.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    holders
      .select(["user.id", "user.name", "user.email"])
      .orderBy("user.name")
      .orderBy("user.id")
      .limit(opts.limit)
      .offset(opts.offset)
      .execute(),
  ]);
  const all = await grantsOfUsers(page.map((u) => u.id));
  const target: DecisionTarget = opts.teamId ? { kind: "team", id: opts.teamId } : undefined;
  const users: Holder[] = [];
  for (const u of page) {
    // Each grant on its own through decide(): the SQL above only narrows to the same answer.
    const grants = (all.get(u.id) ?? []).filter(
      (g) => decide({ active: true, grants: [g] }, permission, target).allowed,
    );
    users.push({
      ...u,
      superAdmin: grants.some((g) => g.role.all && !g.team),
      grants: grants.map(out),
    });
  }
  return { users, total: Number(count.n) };
}

export type PermissionAccess = Explanation & { scope: "everyone" | "teams" | "none" };

/** The user page's Access card: every permission, held or not, and why (one query for the grants). */
export async function accessOf(userId: string, active: boolean): Promise<PermissionAccess[]> {
  const grants = (await grantsOfUsers([userId])).get(userId) ?? [];
  const subject = { active, grants };
  return PERMISSION_KEYS.map((permission) => {
    const decision = decide(subject, permission);
    const global = decision.grants.some((g) => g.team === null);
    return {
      ...decision,
      grants: decision.grants.map(out),
      scope: !decision.allowed ? "none" : global ? "everyone" : "teams",
    };
  });
}
