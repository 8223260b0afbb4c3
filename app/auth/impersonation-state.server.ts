import { grantRowsOf, isLiveRow, liveGlobalRoleIds } from "../access/grant-rows.server";
import { roleGrants } from "../access/role-cache.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, type Executor, now } from "../db.server";
import type { MessageKey } from "../i18n/message";
import { type CachedSession, invalidateSessions } from "./session-cache.server";
import { closeStreamsOfSession } from "./session-end.server";

// How a session that is "viewing as" someone resolves (decision 021); start and stop are impersonation.server.ts.

export const IMPERSONATION_MINUTES = 30;

export type ImpersonationColumns = {
  impersonated_user_id: string | null;
  impersonation_expires_at: string | null;
};

type Grants = Awaited<ReturnType<typeof roleGrants>>;

function holdsAll(roleIds: string[], grants: Grants) {
  return roleIds.some((id) => grants.get(id)?.all);
}

function holdsDashboard(roleIds: string[], grants: Grants) {
  return roleIds.some((id) => {
    const grant = grants.get(id);
    return !!grant && (grant.all || grant.permissions.has("dashboard.access"));
  });
}

export async function loadActiveUser(userId: string) {
  const rows = await db()
    .selectFrom("user")
    .leftJoin("user_role", "user_role.user_id", "user.id")
    .select([
      "user.id",
      "user.name",
      "user.email",
      "user_role.role_id",
      "user_role.team_id",
      "user_role.expires_at as grant_expires_at",
    ])
    .where("user.id", "=", userId)
    .where("user.status", "=", "active")
    .execute();
  const first = rows[0];
  if (!first) return null;
  return {
    id: first.id,
    name: first.name,
    email: first.email,
    grants: grantRowsOf(rows),
    /** Live global ones: what viewing as them may show. */
    roleIds: liveGlobalRoleIds(grantRowsOf(rows)),
  };
}

/** Null when it may (a super admin's view, checked by the caller). */
export async function whyNotViewable(
  target: { roleIds: string[] } | null,
  grants?: Grants,
): Promise<MessageKey | null> {
  if (!target) return "impersonation.unavailable";
  const g = grants ?? (await roleGrants());
  if (holdsAll(target.roleIds, g)) return "impersonation.notSuperAdmin";
  if (!holdsDashboard(target.roleIds, g)) return "impersonation.noDashboard";
  return null;
}

/** When the real person stops being a super admin by their grants' ends; null while one has none. */
function superAdminUntil(real: CachedSession, grants: Grants): string | null {
  const ends = real.grants
    .filter((g) => g.teamId === null && isLiveRow(g) && grants.get(g.roleId)?.all)
    .map((g) => g.expiresAt);
  if (ends.length === 0 || ends.includes(null)) return null;
  return (ends as string[]).sort().at(-1)!;
}

/** The view ends with the impersonation or with the super admin grant, whichever first: the cached session is read again then. */
function endsBy(until: string, cap: string | null): string {
  return cap && Date.parse(cap) < Date.parse(until) ? cap : until;
}

export async function resolveImpersonation(
  sessionId: string,
  real: CachedSession,
  row: ImpersonationColumns,
  origin: AuditOrigin | null,
): Promise<CachedSession> {
  const targetId = row.impersonated_user_id;
  if (!targetId) return real;
  const until = row.impersonation_expires_at;
  const grants = await roleGrants();
  if (!until || Date.parse(until) <= Date.now()) {
    await endImpersonation(sessionId, real, targetId, "expired", origin);
    return real;
  }
  if (!holdsAll(liveGlobalRoleIds(real.grants), grants)) {
    await endImpersonation(sessionId, real, targetId, "no longer a super admin", origin);
    return real;
  }
  const target = await loadActiveUser(targetId);
  if ((await whyNotViewable(target, grants)) || !target || target.id === real.userId) {
    await endImpersonation(sessionId, real, targetId, "account no longer viewable", origin);
    return real;
  }
  return {
    userId: target.id,
    name: target.name,
    email: target.email,
    // The gate's demands are the person's at the keyboard, so the view shows the dashboard instead of a dead end.
    mustChangePassword: false,
    twoFactorEnrolmentDue: false,
    locale: real.locale,
    grants: target.grants,
    expiresAt: real.expiresAt,
    createdAt: real.createdAt,
    lastSeenAt: real.lastSeenAt,
    ownGrants: real.grants,
    impersonator: { id: real.userId, email: real.email, until: endsBy(until, superAdminUntil(real, grants)) },
  };
}

/** The one caller that clears the columns writes the audit row. */
export async function endImpersonation(
  sessionId: string,
  real: Pick<CachedSession, "userId" | "email">,
  targetId: string,
  reason: string,
  origin: AuditOrigin | null,
) {
  const ended = await db()
    .transaction()
    .execute(async (trx) => {
      const result = await trx
        .updateTable("session")
        .set({ impersonated_user_id: null, impersonation_expires_at: null })
        .where("id", "=", sessionId)
        .where("impersonated_user_id", "=", targetId)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await audit(
        origin ?? { request: new Request("http://localhost/") },
        {
          action: "impersonation.end",
          actor: { id: targetId, email: (await emailOf(trx, targetId)) ?? "" },
          impersonator: { id: real.userId, email: real.email },
          target: { type: "user", id: targetId },
          details: { reason },
        },
        trx,
      );
      return true;
    });
  if (ended) await viewChanged(sessionId);
}

/** The session's streams carried the other account's events: they close on every instance and reconnect. */
export async function viewChanged(sessionId: string) {
  await invalidateSessions();
  closeStreamsOfSession(sessionId);
}

async function emailOf(executor: Executor, userId: string) {
  const row = await executor.selectFrom("user").select("email").where("id", "=", userId).executeTakeFirst();
  return row?.email ?? null;
}

export function impersonationEnd(from = Date.now()): string {
  return new Date(from + IMPERSONATION_MINUTES * 60_000).toISOString();
}

/** The caller audits and invalidates. */
export async function setImpersonation(
  executor: Executor,
  session: { id: string; userId: string },
  target: { id: string; until: string } | null,
) {
  const result = await executor
    .updateTable("session")
    .set({ impersonated_user_id: target?.id ?? null, impersonation_expires_at: target?.until ?? null })
    .where("id", "=", session.id)
    .where("user_id", "=", session.userId)
    .where("expires_at", ">", now())
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
