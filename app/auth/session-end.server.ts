import { createHash } from "node:crypto";
import { onRolesChanged } from "../access/role-cache.server";
import { db, type Executor } from "../db.server";
import { closeSessionStreams } from "../events/stream.server";
import { invalidateSessions } from "./session-cache.server";

// Where sessions end. Every path that deletes session rows (sign-out, a new sign-in over an old
// session, revoking one or the others, disabling or deleting the account, a password change or
// reset, an SSO takeover) goes through endSessions (or deleteSessions + sessionsEnded inside a
// larger transaction), so the event streams each ended session opened close with it, on every
// instance. That matters beyond the user's own tabs: while a super admin views as someone, the
// session's stream is registered under the viewed person's id and carries their events; only the
// session's handle reaches it. The viewed person's own streams stay.

/** What the browser may see of a session: a hash, never the id the cookie carries. */
export function sessionHandle(id: string): string {
  return createHash("sha256").update(id).digest("base64url").slice(0, 16);
}

/**
 * Ends the event streams this session opened, and no others: the same account's other sessions
 * keep theirs, and so does a person the session was viewing as.
 */
export function closeStreamsOfSession(sessionId: string) {
  closeSessionStreams(sessionHandle(sessionId));
}

/** One session, or a user's sessions: all, all but `except`, or only `ids`. */
export type SessionScope = { id: string } | { userId: string; except?: string; ids?: string[] };

/**
 * Deletes the sessions `scope` names in `executor` (a transaction's) and returns their ids; the
 * caller passes them to sessionsEnded once that transaction has committed.
 */
export async function deleteSessions(executor: Executor, scope: SessionScope): Promise<string[]> {
  let q = executor.deleteFrom("session");
  if ("id" in scope) q = q.where("id", "=", scope.id);
  else {
    q = q.where("user_id", "=", scope.userId);
    if (scope.except) q = q.where("id", "!=", scope.except);
    if (scope.ids) {
      if (scope.ids.length === 0) return [];
      q = q.where("id", "in", scope.ids);
    }
  }
  const rows = await q.returning("id").execute();
  return rows.map((r) => r.id);
}

/** After the deleting transaction committed: the cache forgets the sessions and their streams close. */
export async function sessionsEnded(ids: string[]) {
  await invalidateSessions();
  for (const id of ids) closeStreamsOfSession(id);
}

/**
 * Deletes the sessions `scope` names, with whatever else `alongside` writes in the same
 * transaction (the account change, its audit row); then, once committed, the session cache
 * forgets them and the event streams they opened close on every instance. Returns how many ended.
 */
export async function endSessions(
  scope: SessionScope,
  alongside?: (trx: Executor) => Promise<void>,
): Promise<number> {
  const ended = await db()
    .transaction()
    .execute(async (trx) => {
      const ids = await deleteSessions(trx, scope);
      await alongside?.(trx);
      return ids;
    });
  await sessionsEnded(ended);
  return ended.length;
}

/**
 * A "View as" may no longer hold (its viewer lost super admin, the person viewed became one or
 * lost dashboard access): closes the streams of the sessions viewing as someone, limited to those
 * of `userId` as viewer or as the person viewed when given, and drops the cached answers (resolved
 * under the old roles). Each browser reconnects, and resolving its session ends the view when it
 * no longer holds (impersonation.end, with the reason) or reopens the same view when it does.
 */
export async function recheckViews(userId?: string) {
  let q = db().selectFrom("session").select("id").where("impersonated_user_id", "is not", null);
  if (userId)
    q = q.where((eb) => eb.or([eb("user_id", "=", userId), eb("impersonated_user_id", "=", userId)]));
  const viewing = await q.execute();
  if (viewing.length === 0) return;
  // Cached answers of these sessions resolved the view under the old roles.
  await invalidateSessions();
  for (const { id } of viewing) closeStreamsOfSession(id);
}

// A change to what a role grants (app/access/roles-admin.server.ts) may end any view: recheck them all.
onRolesChanged(() => recheckViews());
