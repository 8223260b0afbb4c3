import { scheduledCheckpoint } from "../audit/checkpoint.server";
import { purgeExpiredAudit } from "../audit/retention.server";
import { db, now } from "../db.server";
import { pruneEventLog } from "../events/event-log.server";
import { purgeExpiredRateLimits } from "../security/rate-limit.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import { pruneDeliveries } from "../tasks/repository.server";
import { pruneWebhookLog } from "../webhooks/deliveries.server";

const DAY_MS = 86_400_000;

/** Audit rows past the retention setting (a value saved in Settings wins over the environment). */
export async function purgeAuditPastRetention(at = new Date()): Promise<number> {
  return purgeExpiredAudit(Number(await getSystemConfig("AUDIT_RETENTION_DAYS")), at);
}

/**
 * The daily housekeeping: audit rows past retention, sessions and single-use tokens past their
 * expiry (refused already, only taking space), replay records, shared rate-limit counters and
 * events past the replay window (app/events/event-log.server.ts).
 * On PostgreSQL the queue's cron runs it once a day for all instances.
 */
export async function runDailyCleanup() {
  const ts = now();
  const audit = await purgeAuditPastRetention();
  const sessions = await db().deleteFrom("session").where("expires_at", "<", ts).executeTakeFirst();
  const tokens = await db().deleteFrom("user_token").where("expires_at", "<", ts).executeTakeFirst();
  await pruneDeliveries();
  const rateLimits = await purgeExpiredRateLimits();
  const events = await pruneEventLog();
  const webhookMessages = await pruneWebhookLog();
  return {
    webhookMessages,
    audit,
    events,
    sessions: Number(sessions.numDeletedRows),
    tokens: Number(tokens.numDeletedRows),
    rateLimits,
  };
}

const HOUR_MS = 3_600_000;

/**
 * The hourly housekeeping: the audit chain's head, signed only when the chain verifies since the
 * last checkpoint (app/audit/checkpoint.server.ts; otherwise it alerts and signs nothing).
 */
export async function runHourly() {
  return { checkpoint: await scheduledCheckpoint() };
}

let timer: ReturnType<typeof setInterval> | undefined;
let hourly: ReturnType<typeof setInterval> | undefined;

/**
 * Without the queue's cron (SQLite): the audit retention and the event window's prune run shortly
 * after start, then once a day (the event log also prunes itself on the way); the audit chain's
 * checkpoint once an hour.
 */
export function startRetentionSchedule(onError: (e: unknown) => void = console.error) {
  if (timer) return;
  const run = () => {
    void purgeAuditPastRetention().catch(onError);
    void pruneEventLog().catch(onError);
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
