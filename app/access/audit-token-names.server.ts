import { db } from "../db.server";
import type { Grant } from "./decide";
import { grantsOf, liveGlobalRoleIds } from "./grant-rows.server";
import { roleGrants } from "./role-cache.server";
import { manageableUsers } from "./rules.server";

// An API token's name is for those who may manage its owner, as on the user page: the log page and
// the CSV export both pass rows through `auditRowsFor`. Here because the audit module knows no rules.

const HIDDEN_TOKEN_NAME = "[hidden]";

export type AuditViewer = { id: string; isSuperAdmin: boolean; permissions: ReadonlySet<string> };

type Row = {
  action: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  details: string | null;
};

/** Undefined for rows about no token; null when the owner is unknown. */
function tokenOwner(row: Row): string | null | undefined {
  if (!row.action.includes("api_token")) return undefined;
  return row.target_type === "user" ? row.target_id : row.actor_id;
}

function withoutName(details: string | null): string | null {
  if (!details) return details;
  try {
    const parsed: unknown = JSON.parse(details);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    if (!("name" in parsed)) return details;
    return JSON.stringify({ ...parsed, name: HIDDEN_TOKEN_NAME });
  } catch {
    return null;
  }
}

export async function auditRowsFor<R extends Row>(viewer: AuditViewer, rows: R[]): Promise<R[]> {
  if (viewer.isSuperAdmin) return rows;
  const owners = rows.map(tokenOwner);
  if (owners.every((o) => o === undefined)) return rows;
  const shown = await manageableUsers(viewer, [...new Set(owners.filter((o) => typeof o === "string"))]);
  return rows.map((r, i) => {
    const owner = owners[i];
    if (owner === undefined || (owner !== null && shown.has(owner))) return r;
    return { ...r, details: withoutName(r.details) };
  });
}

/**
 * A background task acts as its owner, with their grants as they are now: `permissions` from the
 * live global ones (what `can()` reads), `grants` every one, so a task that follows scope (the
 * users list's bulk acts and export) reaches what the owner's pages reach, and no further.
 */
export async function auditViewerOf(userId: string): Promise<AuditViewer & { grants: Grant[] }> {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("user", "user.id", "user_role.user_id")
    .select(["user_role.role_id", "user_role.team_id", "user_role.expires_at"])
    .where("user_role.user_id", "=", userId)
    .where("user.status", "=", "active")
    .execute();
  const grantRows = rows.map((r) => ({ roleId: r.role_id, teamId: r.team_id, expiresAt: r.expires_at }));
  const [grants, roles] = await Promise.all([grantsOf(grantRows), roleGrants()]);
  const permissions = new Set<string>();
  let isSuperAdmin = false;
  for (const roleId of liveGlobalRoleIds(grantRows)) {
    const role = roles.get(roleId);
    if (!role) continue;
    if (role.all) isSuperAdmin = true;
    for (const p of role.permissions) permissions.add(p);
  }
  return { id: userId, isSuperAdmin, permissions, grants };
}
