import { db } from "../db.server";
import { audit } from "./audit.server";

const DAY_MS = 86_400_000;

/**
 * Deletes audit rows older than `days` (the retention setting, read by the caller in
 * app/server/cleanup.server.ts). The only delete of audit rows in the product: a system job, never a
 * page or endpoint, and it records what it removed.
 */
export async function purgeExpiredAudit(days: number, at = new Date()): Promise<number> {
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
