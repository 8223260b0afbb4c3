import { db } from "../db.server";
import { liveGlobal } from "./grant-rows.server";
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

/** A background task reads the log as its owner, with their roles as they are now. */
export async function auditViewerOf(userId: string): Promise<AuditViewer> {
  const [grants, rows] = await Promise.all([
    roleGrants(),
    db()
      .selectFrom("user_role")
      .innerJoin("user", "user.id", "user_role.user_id")
      .select("user_role.role_id")
      .where("user_role.user_id", "=", userId)
      .where(liveGlobal)
      .where("user.status", "=", "active")
      .execute(),
  ]);
  const permissions = new Set<string>();
  let isSuperAdmin = false;
  for (const { role_id } of rows) {
    const grant = grants.get(role_id);
    if (!grant) continue;
    if (grant.all) isSuperAdmin = true;
    for (const p of grant.permissions) permissions.add(p);
  }
  return { id: userId, isSuperAdmin, permissions };
}
