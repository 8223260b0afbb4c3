import { onRolesChanged } from "../access/role-cache.server";
import { db, type Executor } from "../db.server";
import { closeSessionStreams } from "../events/stream.server";
import { invalidateSessions } from "./session-cache.server";
import { sessionHandle } from "./session-handle";

// Every path that deletes session rows goes through here, so the event streams each ended session
// opened close with it on every instance, including a super admin's "View as" streams.

export { sessionHandle };

/** The account's other sessions keep theirs, and so does a person the session was viewing as. */
export function closeStreamsOfSession(sessionId: string) {
  closeSessionStreams(sessionHandle(sessionId));
}

export type SessionScope = { id: string } | { userId: string; except?: string; ids?: string[] };

/** The caller passes the ids to sessionsEnded once the transaction has committed. */
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

export async function sessionsEnded(ids: string[]) {
  await invalidateSessions();
  for (const id of ids) closeStreamsOfSession(id);
}

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

/** A "View as" may no longer hold: its browsers reconnect, and resolving the session ends or reopens the view. */
export async function recheckViews(userId?: string) {
  let q = db().selectFrom("session").select("id").where("impersonated_user_id", "is not", null);
  if (userId)
    q = q.where((eb) => eb.or([eb("user_id", "=", userId), eb("impersonated_user_id", "=", userId)]));
  const viewing = await q.execute();
  if (viewing.length === 0) return;
  await invalidateSessions();
  for (const { id } of viewing) closeStreamsOfSession(id);
}

onRolesChanged(() => recheckViews());
