import { remember } from "@epic-web/remember";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

// Prometheus metrics (decision 025); nothing here imports the app, so any layer may record without
// a cycle. Every label value comes from a fixed set: never a URL, an id, an address or a message.

const PREFIX = "dashboard_";

const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;

function createMetrics() {
  // Our own registry: tests reset it, and nothing a library registers globally ends up on our page.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const registers = [registry];
  // Counted outside prom-client: what failed may be prom-client itself.
  const failures = { count: 0 };
  return {
    registry,
    failures,
    recordingErrors: new Gauge({
      name: `${PREFIX}metric_recording_errors_total`,
      help: "Metric recordings that threw and were dropped (never thrown into the code recording them).",
      registers,
      collect() {
        this.set(failures.count);
      },
    }),
    httpDuration: new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: "Time to answer an HTTP request, by route pattern and status class.",
      labelNames: ["route", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    openStreams: new Gauge({
      name: `${PREFIX}sse_open_streams`,
      help: "Event streams (GET /api/events) open on this instance.",
      registers,
    }),
    eventsDelivered: new Counter({
      name: `${PREFIX}sse_events_delivered_total`,
      help: "System events written to open event streams.",
      registers,
    }),
    tasks: new Counter({
      name: `${PREFIX}tasks_total`,
      help: "Tasks this process ran to an end, by type and final status.",
      labelNames: ["type", "status"] as const,
      registers,
    }),
    taskDuration: new Histogram({
      name: `${PREFIX}task_run_duration_seconds`,
      help: "Run time of a task's work, by type and final status.",
      labelNames: ["type", "status"] as const,
      buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300],
      registers,
    }),
    queueDepth: new Gauge({
      name: `${PREFIX}task_queue_depth`,
      help: "Tasks waiting (pending) or running (processing), all instances, read from the maintained counters on scrape.",
      labelNames: ["status"] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: `${PREFIX}webhook_deliveries_total`,
      help: "Task completion webhooks, by outcome (delivered, or failed and recorded directly).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    webhookRetries: new Counter({
      name: `${PREFIX}webhook_retries_total`,
      help: "Task completion webhook attempts that failed and were tried again.",
      registers,
    }),
    outgoingWebhooks: new Counter({
      name: `${PREFIX}outgoing_webhook_attempts_total`,
      help: "Outgoing webhook attempts (app/webhooks), by outcome: delivered, retrying, failed (given up).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    outgoingQueue: new Gauge({
      name: `${PREFIX}outgoing_webhook_queue_depth`,
      help: "Outgoing webhook messages not yet delivered, all instances, read on scrape.",
      registers,
    }),
    outgoingOldest: new Gauge({
      name: `${PREFIX}outgoing_webhook_oldest_pending_seconds`,
      help: "Age of the oldest outgoing webhook message not yet delivered (0 when none), read on scrape.",
      registers,
    }),
    mails: new Counter({
      name: `${PREFIX}mails_total`,
      help: "Emails handed to the provider (or the development outbox), by outcome.",
      labelNames: ["outcome"] as const,
      registers,
    }),
    signIns: new Counter({
      name: `${PREFIX}sign_ins_total`,
      help: "Sign-ins that started a session, and password sign-ins refused, by method and outcome.",
      labelNames: ["method", "outcome"] as const,
      registers,
    }),
    breachChecks: new Counter({
      name: `${PREFIX}password_breach_checks_total`,
      help: "Breached-password lookups, by outcome (clean, breached, unavailable: the check failed open).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: `${PREFIX}rate_limit_refusals_total`,
      help: "Points a rate limiter refused, by limiter (app/security/rate-limit.server.ts).",
      labelNames: ["limit"] as const,
      registers,
    }),
    auditIntegrityFailures: new Counter({
      name: `${PREFIX}audit_integrity_failures_total`,
      help: "Audit checkpoints refused because the chain did not verify since the last one (nothing was signed).",
      registers,
    }),
    queryDuration: new Histogram({
      name: `${PREFIX}db_query_duration_seconds`,
      help: "Database query time as Kysely measures it, by outcome.",
      labelNames: ["outcome"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    }),
  };
}

type Metrics = ReturnType<typeof createMetrics>;

// One set per process, so a scrape sees every module instance's recordings (decision 002).
export function metrics(): Metrics {
  return remember("dashboardMetrics", createMetrics);
}

export function resetMetrics() {
  metrics().registry.resetMetrics();
  metrics().failures.count = 0;
  httpChildren.clear();
}

/** Observability never fails the work it watches (prom-client throws on labels a polluted prototype adds). */
function safely(record: () => void) {
  try {
    record();
  } catch {
    metrics().failures.count += 1;
  }
}

type HistogramChild = ReturnType<Histogram<"route" | "status">["labels"]>;
const httpChildren = new Map<string, HistogramChild[]>();

function statusClass(status: number): number {
  const c = Math.floor(status / 100) - 1;
  return c >= 0 && c < STATUS_CLASSES.length ? c : 4;
}

export function observeRequest(route: string, status: number, ms: number) {
  safely(() => {
    let children = httpChildren.get(route);
    if (!children) {
      const h = metrics().httpDuration;
      children = STATUS_CLASSES.map((c) => h.labels(route, c));
      httpChildren.set(route, children);
    }
    children[statusClass(status)]!.observe(ms / 1000);
  });
}

const routeLabels = new Map<string, string>();

/** Never the URL: patterns come from app/routes.ts, so the map holds at most one entry per route. */
export function routeLabel(pattern: string): string {
  let label = routeLabels.get(pattern);
  if (label === undefined) {
    label = `/${pattern.replace(/^\/+/, "")}`;
    routeLabels.set(pattern, label);
  }
  return label;
}

export function eventDelivered() {
  safely(() => metrics().eventsDelivered.inc());
}

/** An unknown type is "unknown", so the label set stays bounded. */
export function taskFinished(type: string, status: "completed" | "failed", ms: number) {
  safely(() => {
    const m = metrics();
    m.tasks.inc({ type, status });
    m.taskDuration.observe({ type, status }, ms / 1000);
  });
}

export function webhookDelivered(delivered: boolean) {
  safely(() => metrics().webhookDeliveries.inc({ outcome: delivered ? "delivered" : "failed" }));
}

export function webhookRetried() {
  safely(() => metrics().webhookRetries.inc());
}

export function outgoingWebhookAttempt(outcome: "delivered" | "retrying" | "failed") {
  safely(() => metrics().outgoingWebhooks.inc({ outcome }));
}

export function mailSent(ok: boolean) {
  safely(() => metrics().mails.inc({ outcome: ok ? "sent" : "failed" }));
}

export type SignInMetricMethod = "password" | "oidc" | "passkey" | "invite" | "two-factor";

export function signIn(method: SignInMetricMethod, ok: boolean) {
  safely(() => metrics().signIns.inc({ method, outcome: ok ? "succeeded" : "failed" }));
}

export function breachCheck(outcome: "clean" | "breached" | "unavailable") {
  safely(() => metrics().breachChecks.inc({ outcome }));
}

export function auditIntegrityFailed() {
  metrics().auditIntegrityFailures.inc();
}

export function rateLimitRefused(limit: string) {
  safely(() => metrics().rateLimited.inc({ limit }));
}

type QueryEvent = { level: "query" | "error"; queryDurationMillis: number };

export function observeQuery(event: QueryEvent) {
  safely(() =>
    metrics().queryDuration.observe(event.level === "error" ? ERROR : OK, event.queryDurationMillis / 1000),
  );
}
const OK = { outcome: "ok" } as const;
const ERROR = { outcome: "error" } as const;
