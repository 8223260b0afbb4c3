import { randomUUID } from "node:crypto";
import { RouterContextProvider } from "react-router";
import { migrateToLatest } from "../../db/migrate";
import { stopPermissionUse } from "../access/permission-use.server";
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
import { startTracing, stopTracing, tracing } from "../http/tracing.server";
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

async function startBackgroundTasks() {
  // Listen for the other instances before taking work, so no completion raised there is missed.
  await startSystemBus();
  // After a listener drop events may be lost: closed streams reconnect and reconcile.
  onBusResync(closeAllStreams);
  await taskRunner().start();
  running.background = true;
  startWebhookDispatcher({ onEndpointDisabled: alertEndpointDisabled });
  running.webhooks = true;
  if (!taskRunner().ownsSchedule) {
    startRetentionSchedule();
    running.retentionSchedule = true;
  }
}

export type StopOptions = {
  /** Started before the event streams end, so a reconnecting browser finds the port closed. */
  closeListener?(): Promise<void>;
  closeMetricsListener?(): Promise<void>;
  closeDevServer?(): Promise<void>;
  onFailure?(step: string, error: unknown): void;
};

/** The stop after the drain, in order (docs/operations.md, "Draining"); every step runs even if one fails. */
function stopSteps(options: StopOptions): StopStep[] {
  const steps: StopStep[] = [];
  const add = (name: string, run: (() => unknown) | undefined) => {
    if (run) steps.push({ name, run });
  };
  let listenerClosed: Promise<void> | undefined;
  if (running.background) add("task runner", () => taskRunner().stop());
  if (running.retentionSchedule) add("retention schedule", stopRetentionSchedule);
  if (running.webhooks) add("webhook deliveries", stopWebhookDispatcher);
  add(
    "stop accepting",
    options.closeListener &&
      (() => {
        listenerClosed = options.closeListener!();
        listenerClosed.catch(() => {}); // reported by the step that awaits it
      }),
  );
  // Browsers come back through the balancer to a ready instance and replay from Last-Event-ID.
  add("event streams", () => closeAllStreams(STREAM_RETRY_AFTER_STOP_MS));
  // Vite's live-reload sockets share the listener: the listener's close waits for them.
  add("dev server", options.closeDevServer);
  add("requests in flight", options.closeListener && (() => listenerClosed));
  add("mail deliveries", running.background ? settleDeliveries : undefined);
  add("metrics listener", options.closeMetricsListener);
  add("event bus", stopSystemBus);
  add("permission use", stopPermissionUse);
  add("database", closeDb);
  // Last: what every step above did is sent before the process ends.
  add("traces", tracing() ? stopTracing : undefined);
  running.background = false;
  running.retentionSchedule = false;
  running.webhooks = false;
  return steps;
}

let drainEnded: (() => void) | undefined;

// Exported through entry.server so server.ts drives the same module instances the routes use (decision 002).
export const lifecycle = {
  start(): Promise<void> {
    assertProductionSecrets();
    if (!started) {
      composeServices();
      // Tracing first, so the migration's and the background work's spans are sent too.
      started = startTracing()
        .then(() => migrateToLatest(db()))
        .then(startBackgroundTasks);
    }
    return started;
  },
  shutdownPlan(): { drainMs: number; graceMs: number; listenerCloseMs: number } {
    return { drainMs: drainMs(), graceMs: shutdownGraceMs(), listenerCloseMs: LISTENER_CLOSE_MS };
  },
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
  endDrain() {
    drainEnded?.();
  },
  stop(options: StopOptions = {}): Promise<StepFailure[]> {
    return runStopSteps(
      stopSteps(options),
      options.onFailure ?? ((step, error) => console.error(`stopping: ${step} failed`, error)),
    );
  },
};

/** A caller without a request id (the tests' app) gets a fresh one. */
export function createRequestContext(
  info: Omit<RequestInfo, "requestId"> & { requestId?: string },
): RouterContextProvider {
  if (info.requestId) return new RouterContextProvider(new Map([[requestInfoContext, info as RequestInfo]]));
  const requestId = currentRequestId() ?? randomUUID();
  return new RouterContextProvider(new Map([[requestInfoContext, Object.assign(info, { requestId })]]));
}
