import { db } from "../db.server";
import { getSystemConfig } from "../settings/system-config.server";
import { audit } from "./audit.server";

const DAY_MS = 86_400_000;

/**
 * Deletes audit rows older than the retention setting. The only delete of audit rows in the
 * product: a system job, never a page or endpoint, and it records what it removed.
 */
export async function purgeExpiredAudit(at = new Date()): Promise<number> {
  const days = Number(await getSystemConfig("AUDIT_RETENTION_DAYS"));
  if (!Number.isFinite(days) || days < 1) return 0;
  const cutoff = new Date(at.getTime() - days * DAY_MS).toISOString();
  const res = await db().deleteFrom("audit_log").where("created_at", "<", cutoff).executeTakeFirst();
  const removed = Number(res.numDeletedRows);
  if (removed > 0) {
    await audit(
      { request: new Request("http://internal/retention", { headers: { "User-Agent": "retention-job" } }) },
      {
        action: "audit.retention",
        target: { type: "audit_log", id: null },
        details: { removed, olderThan: cutoff, days },
      },
    );
  }
  return removed;
}

let timer: ReturnType<typeof setInterval> | undefined;

/** Runs the cleanup shortly after start and then once a day. */
export function startRetentionSchedule(onError: (e: unknown) => void = console.error) {
  if (timer) return;
  const run = () => void purgeExpiredAudit().catch(onError);
  const first = setTimeout(run, 60_000);
  first.unref?.();
  timer = setInterval(run, DAY_MS);
  timer.unref?.();
}

export function stopRetentionSchedule() {
  clearInterval(timer);
  timer = undefined;
}
