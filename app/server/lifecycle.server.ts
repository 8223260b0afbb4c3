import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { RouterContextProvider } from "react-router";
import { migrateToLatest } from "../../db/migrate";
import { closeDb, db } from "../db.server";
import { DEV_SESSION_SECRET, env, sessionSecrets } from "../env.server";
import { onBusResync, startSystemBus, stopSystemBus } from "../events/bus.server";
import { closeAllStreams } from "../events/stream.server";
import { currentRequestId } from "../http/request-id.server";
import { type RequestInfo, requestInfoContext } from "../http/request-info.server";
import { settleDeliveries } from "../mail/deliveries.server";
import { taskRunner } from "../tasks/runner.server";
import { startRetentionSchedule, stopRetentionSchedule } from "./cleanup.server";
import { composeServices } from "./composition.server";

type Hook = () => Promise<void> | void;
const stopHooks: Hook[] = [];

/** Services that hold resources (event streams, task runners) register how to let go of them. */
function onShutdown(hook: Hook) {
  stopHooks.push(hook);
}

let started: Promise<void> | undefined;

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
  onShutdown(stopSystemBus);
  // After a listener drop, events may be lost: closing the streams makes clients reconnect and
  // reconcile through GET /api/tasks.
  onBusResync(closeAllStreams);
  await taskRunner().start();
  onShutdown(closeAllStreams);
  onShutdown(() => taskRunner().stop());
  // Public-form emails leave after their answer; let those in flight finish before the pool closes.
  onShutdown(settleDeliveries);
  if (!taskRunner().ownsSchedule) {
    startRetentionSchedule();
    onShutdown(stopRetentionSchedule);
  }
}

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
  async stop(): Promise<void> {
    for (const hook of stopHooks.splice(0).reverse()) await hook();
    await closeDb();
  },
  async health(): Promise<boolean> {
    try {
      await sql`select 1`.execute(db());
      return true;
    } catch {
      return false;
    }
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
