import { purgeExpiredAudit } from "../audit/retention.server";
import { db, now } from "../db.server";
import { purgeExpiredRateLimits } from "../security/rate-limit.server";
import { pruneDeliveries } from "../tasks/repository.server";

/**
 * The daily housekeeping: audit rows past retention, sessions and single-use tokens past their
 * expiry (refused already, only taking space), replay records and shared rate-limit counters.
 * On PostgreSQL the queue's cron runs it once a day for all instances.
 */
export async function runDailyCleanup() {
  const ts = now();
  const audit = await purgeExpiredAudit();
  const sessions = await db().deleteFrom("session").where("expires_at", "<", ts).executeTakeFirst();
  const tokens = await db().deleteFrom("user_token").where("expires_at", "<", ts).executeTakeFirst();
  await pruneDeliveries();
  const rateLimits = await purgeExpiredRateLimits();
  return {
    audit,
    sessions: Number(sessions.numDeletedRows),
    tokens: Number(tokens.numDeletedRows),
    rateLimits,
  };
}
