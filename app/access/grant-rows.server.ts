import { type ExpressionBuilder, sql } from "kysely";
import type { Database } from "../../db/schema";
import { db, now } from "../db.server";
import type { Grant } from "./decide";
import { roleGrants } from "./role-cache.server";

// How the rest of the product reads user_role (decision 044). A row is a grant: global (team_id
// null) or within a team, live until expires_at. Code that asks "which roles does this person
// have" for their global authority (session, tokens, super admin counts, notices) reads only live
// global grants through liveGlobal(), so a grant within a team never becomes one over everyone.

export type GrantRow = { roleId: string; teamId: string | null; expiresAt: string | null };

type UserRoleEb = ExpressionBuilder<Database, "user_role">;

/** For a where or a join's on: a global grant, not expired now. */
export function liveGlobal(eb: UserRoleEb) {
  return eb.and([eb("user_role.team_id", "is", null), live(eb)]);
}

/** Not expired now (global or within a team). */
export function live(eb: UserRoleEb) {
  return eb.or([eb("user_role.expires_at", "is", null), eb("user_role.expires_at", ">", now())]);
}

/** For raw SQL: the live-global condition on an alias of user_role. */
export function liveGlobalSql(alias: string) {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<boolean>`(${ref("team_id")} is null and (${ref("expires_at")} is null or ${ref("expires_at")} > ${now()}))`;
}

export function isLiveRow(row: GrantRow, at = Date.now()): boolean {
  return row.expiresAt === null || Date.parse(row.expiresAt) > at;
}

/** The rows as grants with their roles (a role deleted since is dropped). */
export async function grantsOf(rows: readonly GrantRow[]): Promise<Grant[]> {
  const roles = await roleGrants();
  return rows.flatMap((r) => {
    const role = roles.get(r.roleId);
    return role ? [{ role, team: r.teamId ? { id: r.teamId } : null, expiresAt: r.expiresAt }] : [];
  });
}

/** From a query that left-joined user_role (selecting role_id, team_id, expires_at as grant_expires_at). */
export function grantRowsOf(
  rows: readonly { role_id: string | null; team_id: string | null; grant_expires_at: string | null }[],
): GrantRow[] {
  return rows.flatMap((r) =>
    r.role_id ? [{ roleId: r.role_id, teamId: r.team_id, expiresAt: r.grant_expires_at }] : [],
  );
}

/** The live global roles among the rows: what "holds role X" meant before grants had a scope. */
export function liveGlobalRoleIds(rows: readonly GrantRow[], at = Date.now()): string[] {
  return rows.filter((r) => r.teamId === null && isLiveRow(r, at)).map((r) => r.roleId);
}

/** Every grant of each person, expired ones too (an expired grant is a reason), with team names. */
export async function grantsOfUsers(userIds: readonly string[]): Promise<Map<string, Grant[]>> {
  const out = new Map<string, Grant[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const [roles, rows] = await Promise.all([
    roleGrants(),
    db()
      .selectFrom("user_role")
      .leftJoin("team", "team.id", "user_role.team_id")
      .select([
        "user_role.user_id",
        "user_role.role_id",
        "user_role.team_id",
        "team.name as team_name",
        "user_role.expires_at",
      ])
      .where("user_role.user_id", "in", [...userIds])
      .execute(),
  ]);
  for (const r of rows) {
    const role = roles.get(r.role_id);
    if (!role) continue;
    const team = r.team_id ? { id: r.team_id, name: r.team_name ?? "" } : null;
    out.get(r.user_id)?.push({ role, team, expiresAt: r.expires_at });
  }
  return out;
}
