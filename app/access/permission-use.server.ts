import { sql } from "kysely";
import { db } from "../db.server";

// When each person last used each permission, for access reviews (docs/decisions/048): a check
// that lets someone through is noted in memory, and the newest time per person and permission is
// written at most once a minute per instance, never a write per request. An instance that dies
// loses at most its last minute, which a reviewer reading "last used" in days does not miss.

const PERMISSION_USE_FLUSH_MS = 60_000;
const BATCH = 200;

const pending = new Map<string, number>();
let timer: ReturnType<typeof setInterval> | undefined;

/** Cheap enough for every guard: a map write; the first note starts the minute's flush. */
export function notePermissionUse(userId: string, permission: string, at = Date.now()): void {
  pending.set(`${userId}\n${permission}`, at);
  if (!timer) {
    timer = setInterval(() => void flushPermissionUse().catch(logFlushError), PERMISSION_USE_FLUSH_MS);
    timer.unref?.();
  }
}

function logFlushError(error: unknown) {
  console.error(`[permission-use] flush failed: ${String(error)}`);
}

/** Writes what was noted since the last flush, keeping the later time where a row exists. */
export async function flushPermissionUse(): Promise<number> {
  if (pending.size === 0) return 0;
  const rows = [...pending].map(([key, at]) => {
    const [user_id, permission] = key.split("\n") as [string, string];
    return { user_id, permission, last_used_at: new Date(at).toISOString() };
  });
  pending.clear();
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    // A person deleted since the check has no row for their note to belong to.
    const alive = new Set(
      (
        await db()
          .selectFrom("user")
          .select("id")
          .where("id", "in", [...new Set(batch.map((r) => r.user_id))])
          .execute()
      ).map((u) => u.id),
    );
    const values = batch.filter((r) => alive.has(r.user_id));
    if (values.length === 0) continue;
    // One batch refused (someone deleted in between) loses that batch's notes, not the rest.
    await db()
      .insertInto("permission_use")
      .values(values)
      .onConflict((oc) =>
        oc.columns(["user_id", "permission"]).doUpdateSet({
          last_used_at: sql`case when excluded.last_used_at > permission_use.last_used_at then excluded.last_used_at else permission_use.last_used_at end`,
        }),
      )
      .execute()
      .catch(logFlushError);
  }
  return rows.length;
}

/** The last flush before the database closes. */
export async function stopPermissionUse(): Promise<void> {
  clearInterval(timer);
  timer = undefined;
  await flushPermissionUse();
}

/** Each person's last use of each permission they have used. */
export async function lastUses(userIds: string[]): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (let i = 0; i < userIds.length; i += BATCH) {
    const rows = await db()
      .selectFrom("permission_use")
      .select(["user_id", "permission", "last_used_at"])
      .where("user_id", "in", userIds.slice(i, i + BATCH))
      .execute();
    for (const r of rows) {
      const mine = out.get(r.user_id) ?? new Map<string, string>();
      mine.set(r.permission, new Date(r.last_used_at).toISOString());
      out.set(r.user_id, mine);
    }
  }
  return out;
}
