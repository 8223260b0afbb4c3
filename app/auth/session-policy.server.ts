import type { Grant } from "../access/decide";
import { roleGrants } from "../access/role-cache.server";
import { db, now } from "../db.server";
import { getSystemConfig } from "../system-settings/system-config.server";

// How long a session may sit unused, and live at all (decision 051): SESSION_IDLE_MINUTES (Settings
// wins over the environment; none by default), and each role's own limits where stricter. A role
// held in a team counts as much as one held over everyone. API tokens have their own expiry and
// are not sessions: none of this applies to them.

export type SessionLimits = { idleMs: number | null; maxMs: number | null };

/** At most this stale is a session's "last seen", so the page and the idle rule are right to a minute. */
const TOUCH_EVERY_MS = 60_000;

const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

export async function sessionLimits(grants: readonly Grant[]): Promise<SessionLimits> {
  const global = Number((await getSystemConfig("SESSION_IDLE_MINUTES")) ?? "");
  let idleMs = global > 0 ? global * 60_000 : null;
  let maxMs: number | null = null;
  const roles = await roleGrants();
  for (const grant of grants) {
    const role = roles.get(grant.role.id);
    if (!role) continue;
    if (role.sessionIdleMinutes) idleMs = min(idleMs, role.sessionIdleMinutes * 60_000);
    if (role.sessionMaxHours) maxMs = min(maxMs, role.sessionMaxHours * 3_600_000);
  }
  return { idleMs, maxMs };
}

/** Written no more often than a quarter of the idle limit, so a busy session is never judged idle. */
export function touchDue(lastSeenAt: string, limits: SessionLimits, at = Date.now()): boolean {
  const every = limits.idleMs === null ? TOUCH_EVERY_MS : Math.min(TOUCH_EVERY_MS, limits.idleMs / 4);
  return at - Date.parse(lastSeenAt) >= every;
}

export type Ending = "idle" | "lifetime" | null;

/**
 * Why the session ends now, if it does. `lastSeenAt` may be this instance's cached value: a session
 * that looks idle is read again, since another instance may have seen it since.
 */
export async function endingOf(
  id: string,
  session: { createdAt: string; lastSeenAt: string },
  limits: SessionLimits,
  at = Date.now(),
): Promise<Ending> {
  if (limits.maxMs !== null && at - Date.parse(session.createdAt) > limits.maxMs) return "lifetime";
  if (limits.idleMs === null || at - Date.parse(session.lastSeenAt) <= limits.idleMs) return null;
  const fresh = await db()
    .selectFrom("session")
    .select("last_seen_at")
    .where("id", "=", id)
    .executeTakeFirst();
  if (fresh && at - Date.parse(fresh.last_seen_at) <= limits.idleMs) {
    session.lastSeenAt = fresh.last_seen_at;
    return null;
  }
  return "idle";
}

/** Noted on the cached session too, so this instance writes again only when due. */
export async function touchSession(id: string, session: { lastSeenAt: string }) {
  const ts = now();
  await db().updateTable("session").set({ last_seen_at: ts }).where("id", "=", id).execute();
  session.lastSeenAt = ts;
}
