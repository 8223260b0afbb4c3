import { scheduledCheckpoint } from "../audit/checkpoint.server";
import { purgeExpiredAudit } from "../audit/retention.server";
import { db, now } from "../db.server";
import { pruneEventLog } from "../events/event-log.server";
import { purgeExpiredRateLimits } from "../security/rate-limit.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import { closeOverdueReviews } from "../tasks/access-review-apply.server";
import { pruneDeliveries } from "../tasks/repository.server";
import { expireAccessRequests } from "../users/access-requests.server";
import { expireGrants, noticeExpiringGrants } from "../users/grant-expiry.server";
import { pruneWebhookLog } from "../webhooks/deliveries.server";

const DAY_MS = 86_400_000;

export async function purgeAuditPastRetention(at = new Date()): Promise<number> {
  return purgeExpiredAudit(Number(await getSystemConfig("AUDIT_RETENTION_DAYS")), at);
}

/** On PostgreSQL the queue's cron runs it once a day for all instances. */
export async function runDailyCleanup() {
  const ts = now();
  const audit = await purgeAuditPastRetention();
  const sessions = await db().deleteFrom("session").where("expires_at", "<", ts).executeTakeFirst();
  const tokens = await db().deleteFrom("user_token").where("expires_at", "<", ts).executeTakeFirst();
  await pruneDeliveries();
  const rateLimits = await purgeExpiredRateLimits();
  const events = await pruneEventLog();
  const webhookMessages = await pruneWebhookLog();
  const grants = await expireGrants();
  const reviews = await closeOverdueReviews();
  return {
    reviews,
    webhookMessages,
    grants,
    audit,
    events,
    sessions: Number(sessions.numDeletedRows),
    tokens: Number(tokens.numDeletedRows),
    rateLimits,
  };
}

const HOUR_MS = 3_600_000;

export async function runHourly() {
  return {
    checkpoint: await scheduledCheckpoint(),
    expiryNotices: await noticeExpiringGrants(),
    expiredRequests: await expireAccessRequests(),
  };
}

let timer: ReturnType<typeof setInterval> | undefined;
let hourly: ReturnType<typeof setInterval> | undefined;

/** Without the queue's cron (SQLite). */
export function startRetentionSchedule(onError: (e: unknown) => void = console.error) {
  if (timer) return;
  const run = () => {
    void purgeAuditPastRetention().catch(onError);
    void pruneEventLog().catch(onError);
    void expireGrants().catch(onError);
    void closeOverdueReviews().catch(onError);
  };
  const first = setTimeout(run, 60_000);
  first.unref?.();
  timer = setInterval(run, DAY_MS);
  timer.unref?.();
  hourly = setInterval(() => void runHourly().catch(onError), HOUR_MS);
  hourly.unref?.();
}

export function stopRetentionSchedule() {
  clearInterval(timer);
  clearInterval(hourly);
  timer = undefined;
  hourly = undefined;
}
