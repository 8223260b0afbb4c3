import { randomUUID } from "node:crypto";
import { RouterContextProvider } from "react-router";
import { migrateToLatest } from "../../db/migrate";
import { closeDb, db } from "../db.server";
import {
  DEV_SESSION_SECRET,
  drainMs,
  env,
  LISTENER_CLOSE_MS,
  sessionSecrets,
  shutdownGraceMs,
} from "../env.server";
import { onBusResync, startSystemBus, stopSystemBus } from "../events/bus.server";
import { closeAllStreams } from "../events/stream.server";
import { currentRequestId } from "../http/request-id.server";
import { type RequestInfo, requestInfoContext } from "../http/request-info.server";
import { settleDeliveries } from "../mail/deliveries.server";
import { alertEndpointDisabled } from "../settings/webhook-alerts.server";
import { taskRunner } from "../tasks/runner.server";
import { startWebhookDispatcher, stopWebhookDispatcher } from "../webhooks/delivery.server";
import { startRetentionSchedule, stopRetentionSchedule } from "./cleanup.server";
import { composeServices } from "./composition.server";
import { startDraining } from "./readiness.server";
import { runStopSteps, type StepFailure, type StopStep } from "./stop-sequence.server";

const STREAM_RETRY_AFTER_STOP_MS = 500;

let started: Promise<void> | undefined;
/** What startBackgroundTasks started, so stop() stops exactly that. */
const running = { background: false, retentionSchedule: false, webhooks: false };

/** Cookies, the webhook key and the settings key all derive from SESSION_SECRET: never run on the default. */
function assertProductionSecrets() {
  if (env().NODE_ENV !== "production") return;
  if (!process.env.SESSION_SECRET?.trim() || sessionSecrets().includes(DEV_SESSION_SECRET)) {
    throw new Error(
      "SESSION_SECRET must be set to a long random value in production (npm run dev writes one into .env).",
    );
  }
}

/** The task runner takes up pending work; at stop it finishes (grace period) before streams close. */
async function startBackgroundTasks() {
  // Listen for the other instances before taking work, so no completion raised there is missed.
  await startSystemBus();
  // After a listener drop, events may be lost: closing the streams makes clients reconnect and
  // reconcile through GET /api/tasks.
  onBusResync(closeAllStreams);
  await taskRunner().start();
  running.background = true;
  // Outgoing webhooks: every instance sends what is due, each message claimed by one (app/webhooks).
  startWebhookDispatcher({ onEndpointDisabled: alertEndpointDisabled });
  running.webhooks = true;
  if (!taskRunner().ownsSchedule) {
    startRetentionSchedule();
    running.retentionSchedule = true;
  }
}

/** What server.ts adds to the stop: its sockets, which only it holds. */
export type StopOptions = {
  /**
   * Stops accepting connections at once; resolves when the requests in flight have been answered
   * (bounded, app/env.server.ts LISTENER_CLOSE_MS). Started before the event streams end, so a
   * reconnecting browser finds the port closed and goes elsewhere.
   */
  closeListener?(): Promise<void>;
  closeMetricsListener?(): Promise<void>;
  closeDevServer?(): Promise<void>;
  /** Each failed step, with its error: logged, and the next step still runs. */
  onFailure?(step: string, error: unknown): void;
};

/**
 * The stop after the drain, in order (docs/operations.md, "Draining"): no new tasks (running ones
 * get their grace; the listener still answers their webhooks), no schedule, stop accepting, end the
 * event streams (browsers reconnect elsewhere), wait for the requests in flight, let queued emails
 * leave, then the metrics listener, the bus and the database. Every step runs even if one fails.
 */
function stopSteps(options: StopOptions): StopStep[] {
  const steps: StopStep[] = [];
  const add = (name: string, run: (() => unknown) | undefined) => {
    if (run) steps.push({ name, run });
  };
  let listenerClosed: Promise<void> | undefined;
  if (running.background) add("task runner", () => taskRunner().stop());
  if (running.retentionSchedule) add("retention schedule", stopRetentionSchedule);
  // Attempts under way end within their 10 s timeout; what is not sent waits in the table.
  if (running.webhooks) add("webhook deliveries", stopWebhookDispatcher);
  add(
    "stop accepting",
    options.closeListener &&
      (() => {
        listenerClosed = options.closeListener!();
        listenerClosed.catch(() => {}); // reported by the step that awaits it
      }),
  );
  // Browsers come back soon, through the balancer to a ready instance, and are replayed what
  // they missed (Last-Event-ID); the jitter the stream's own retry adds is not needed here.
  add("event streams", () => closeAllStreams(STREAM_RETRY_AFTER_STOP_MS));
  // Vite's live-reload sockets share the listener (server.ts): the listener's close waits for them.
  add("dev server", options.closeDevServer);
  add("requests in flight", options.closeListener && (() => listenerClosed));
  // Public-form emails leave after their answer; let those in flight finish before the pool closes.
  add("mail deliveries", running.background ? settleDeliveries : undefined);
  add("metrics listener", options.closeMetricsListener);
  add("event bus", stopSystemBus);
  add("database", closeDb);
  running.background = false;
  running.retentionSchedule = false;
  running.webhooks = false;
  return steps;
}

let drainEnded: (() => void) | undefined;

// Exported through entry.server so server.ts drives the same module instances the routes use
// (docs/decisions/002-lean-server.md).
export const lifecycle = {
  start(): Promise<void> {
    assertProductionSecrets();
    if (!started) {
      composeServices();
      started = migrateToLatest(db()).then(startBackgroundTasks);
    }
    return started;
  },
  /** How long the drain lasts, and the bound of the whole stop (the process exits 1 past it). */
  shutdownPlan(): { drainMs: number; graceMs: number; listenerCloseMs: number } {
    return { drainMs: drainMs(), graceMs: shutdownGraceMs(), listenerCloseMs: LISTENER_CLOSE_MS };
  },
  /**
   * SIGTERM: /readyz answers 503 from this call on and every answer says `Connection: close`,
   * while requests are still served; resolves after DRAIN_MS, or at once on endDrain().
   */
  drain(): Promise<void> {
    startDraining();
    // Jobs fetched from now on would get only the grace period: leave them to ready instances.
    taskRunner().stopTaking?.();
    const ms = drainMs();
    if (ms === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        drainEnded = undefined;
        resolve();
      }
      drainEnded = finish;
    });
  },
  /** A second SIGTERM or SIGINT: the rest of the drain's wait is skipped. */
  endDrain() {
    drainEnded?.();
  },
  /** Runs every stop step (stopSteps); resolves with the ones that failed. */
  stop(options: StopOptions = {}): Promise<StepFailure[]> {
    return runStopSteps(
      stopSteps(options),
      options.onFailure ?? ((step, error) => console.error(`stopping: ${step} failed`, error)),
    );
  },
};

/**
 * The router context for one request, carrying what only the socket knows. The request id is the
 * node pipeline's (passed, or the one it runs the request under); a caller without one (the
 * tests' app) gets a fresh id. The pipeline's own info object is kept as is: middleware writes the
 * route label into it for the metrics.
 */
export function createRequestContext(
  info: Omit<RequestInfo, "requestId"> & { requestId?: string },
): RouterContextProvider {
  if (info.requestId) return new RouterContextProvider(new Map([[requestInfoContext, info as RequestInfo]]));
  const requestId = currentRequestId() ?? randomUUID();
  return new RouterContextProvider(new Map([[requestInfoContext, Object.assign(info, { requestId })]]));
}
