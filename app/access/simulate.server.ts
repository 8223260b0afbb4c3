import { z } from "zod";
import { db } from "../db.server";
import { InvalidInput } from "../domain-errors";
import { type DecisionSubject, type Grant, type GrantRole, scopeOf } from "./decide";
import { grantsOfUsers } from "./grant-rows.server";
import { PERMISSION_KEYS } from "./permissions";
import { type RoleGrant, roleGrants } from "./role-cache.server";

// "12 people gain user.delete, 3 lose log.read" before anything is saved (POST /api/access/simulate,
// the role matrix's preview): everyone a change touches is decided before and after by the same
// decide() the guards use (through scopeOf), and nothing is written.

const MAX_CHANGES = 200;
/** Kept in the answer per list; the totals count them all. */
const SHOWN = 1000;
const BATCH = 500;

const permissionKey = z.enum(PERMISSION_KEYS as [string, ...string[]]);

export const simulateInput = z
  .object({
    changes: z
      .array(
        z.discriminatedUnion("op", [
          z
            .object({
              op: z.enum(["grant", "revoke"]),
              user: z.string().uuid(),
              role: z.string().min(1).max(64),
              team: z.string().uuid().nullish(),
            })
            .strict(),
          z
            .object({
              op: z.literal("permissions"),
              role: z.string().min(1).max(64),
              add: z.array(permissionKey).max(50).default([]),
              remove: z.array(permissionKey).max(50).default([]),
            })
            .strict(),
        ]),
      )
      .min(1)
      .max(MAX_CHANGES),
  })
  .strict();

export type SimulateInput = z.infer<typeof simulateInput>;
type Change = SimulateInput["changes"][number];

type Person = { id: string; name: string };
export type Shift = { user: Person; permission: string; team: { id: string; name: string } | null };
export type Impact = { gains: Shift[]; losses: Shift[]; gainsTotal: number; lossesTotal: number };

/** Roles as they would be after the permission changes. */
function rolesAfter(roles: Map<string, RoleGrant>, changes: Change[]): Map<string, GrantRole> {
  const after = new Map<string, GrantRole>();
  for (const role of roles.values()) after.set(role.id, { ...role, permissions: new Set(role.permissions) });
  for (const c of changes) {
    if (c.op !== "permissions") continue;
    const role = [...after.values()].find((r) => r.name === c.role);
    if (!role || role.all) continue;
    const set = new Set(role.permissions);
    for (const p of c.add) set.add(p);
    for (const p of c.remove) set.delete(p);
    after.set(role.id, { ...role, permissions: set });
  }
  return after;
}

/** Where each permission is held: "*" over everyone, else team ids. */
function holdings(subject: DecisionSubject): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of PERMISSION_KEYS) {
    const scope = scopeOf(subject, p);
    out.set(p, new Set(scope === null ? ["*"] : scope));
  }
  return out;
}

function differences(before: Map<string, Set<string>>, after: Map<string, Set<string>>) {
  const shifts: { permission: string; team: string | null }[] = [];
  for (const [permission, places] of after) {
    const had = before.get(permission)!;
    if (places.has("*")) {
      if (!had.has("*")) shifts.push({ permission, team: null });
      continue;
    }
    for (const team of places) if (!had.has(team) && !had.has("*")) shifts.push({ permission, team });
  }
  return shifts;
}

async function affectedUsers(changes: Change[], roles: Map<string, RoleGrant>): Promise<string[]> {
  const ids = new Set(changes.flatMap((c) => (c.op === "permissions" ? [] : [c.user])));
  const roleIds = changes.flatMap((c) =>
    c.op === "permissions" ? [...roles.values()].filter((r) => r.name === c.role).map((r) => r.id) : [],
  );
  if (roleIds.length) {
    const holders = await db()
      .selectFrom("user_role")
      .select("user_id")
      .distinct()
      .where("role_id", "in", roleIds)
      .execute();
    for (const h of holders) ids.add(h.user_id);
  }
  return [...ids].sort();
}

/** An unknown role, person or team is named by its place in `changes` (400), before anything is read. */
async function assertKnown(changes: Change[], roles: Map<string, RoleGrant>): Promise<Map<string, string>> {
  const names = new Set([...roles.values()].map((r) => r.name));
  const users = new Set(changes.flatMap((c) => (c.op === "permissions" ? [] : [c.user])));
  const teams = new Set(changes.flatMap((c) => (c.op !== "permissions" && c.team ? [c.team] : [])));
  const [foundUsers, foundTeams] = await Promise.all([
    users.size
      ? db()
          .selectFrom("user")
          .select("id")
          .where("id", "in", [...users])
          .execute()
      : [],
    teams.size
      ? db()
          .selectFrom("team")
          .select(["id", "name"])
          .where("id", "in", [...teams])
          .execute()
      : [],
  ]);
  const knownUsers = new Set(foundUsers.map((u) => u.id));
  const teamNames = new Map(foundTeams.map((t) => [t.id, t.name]));
  for (const [i, c] of changes.entries()) {
    if (!names.has(c.role)) throw new InvalidInput("access.grant.roleUnknown", `changes.${i}.role`);
    if (c.op === "permissions") continue;
    if (!knownUsers.has(c.user)) throw new InvalidInput("users.notFound", `changes.${i}.user`);
    if (c.team && !teamNames.has(c.team))
      throw new InvalidInput("access.grant.teamUnknown", `changes.${i}.team`);
  }
  return teamNames;
}

export async function simulate(input: SimulateInput): Promise<Impact> {
  const roles = await roleGrants();
  const teamNames = await assertKnown(input.changes, roles);
  const changed = rolesAfter(roles, input.changes);
  const users = await affectedUsers(input.changes, roles);
  const impact: Impact = { gains: [], losses: [], gainsTotal: 0, lossesTotal: 0 };
  // Looked up per person, not searched: a role's change can touch every person.
  const byName = new Map([...changed.values()].map((r) => [r.name, r]));
  const personal = new Map<string, Extract<Change, { user: string }>[]>();
  for (const c of input.changes)
    if (c.op !== "permissions") personal.set(c.user, [...(personal.get(c.user) ?? []), c]);
  for (let i = 0; i < users.length; i += BATCH) {
    const part = users.slice(i, i + BATCH);
    const [people, held] = await Promise.all([
      db().selectFrom("user").select(["id", "name", "status"]).where("id", "in", part).execute(),
      grantsOfUsers(part),
    ]);
    for (const person of people) {
      const before = held.get(person.id) ?? [];
      for (const g of before) if (g.team) teamNames.set(g.team.id, g.team.name ?? "");
      let after: Grant[] = before.map((g) => ({ ...g, role: changed.get(g.role.id) ?? g.role }));
      for (const c of personal.get(person.id) ?? []) {
        const role = byName.get(c.role);
        if (!role) continue;
        const team = c.team ?? null;
        after = after.filter((g) => !(g.role.id === role.id && (g.team?.id ?? null) === team));
        if (c.op === "grant") after.push({ role, team: team ? { id: team } : null, expiresAt: null });
      }
      const active = person.status === "active";
      const was = holdings({ active, grants: before });
      const will = holdings({ active, grants: after });
      const who = { id: person.id, name: person.name };
      for (const s of differences(was, will)) {
        impact.gainsTotal++;
        if (impact.gains.length < SHOWN)
          impact.gains.push({ user: who, permission: s.permission, team: ref(s.team) });
      }
      for (const s of differences(will, was)) {
        impact.lossesTotal++;
        if (impact.losses.length < SHOWN)
          impact.losses.push({ user: who, permission: s.permission, team: ref(s.team) });
      }
    }
  }
  return impact;

  function ref(team: string | null) {
    return team ? { id: team, name: teamNames.get(team) ?? "" } : null;
  }
}

/** The role matrix's save as simulate's changes: each role's permissions added and removed. */
export async function matrixChanges(edits: { roleId: string; permissions: string[] }[]): Promise<Change[]> {
  const roles = await roleGrants();
  const changes: Change[] = [];
  for (const edit of edits) {
    const role = roles.get(edit.roleId);
    if (!role || role.all) continue;
    const after = new Set(edit.permissions);
    const add = [...after].filter((p) => !role.permissions.has(p));
    const remove = [...role.permissions].filter((p) => !after.has(p));
    if (add.length || remove.length) changes.push({ op: "permissions", role: role.name, add, remove });
  }
  return changes;
}
