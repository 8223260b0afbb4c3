import { sql } from "kysely";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { db } from "../db.server";
import type { Readiness } from "../http/node-server.server";
import { taskRunner } from "../tasks/runner.server";

// GET /readyz (docs/http-contract.md, "Health and readiness"): whether this instance should be
// given new work. Balancers ask it every second or so, on every instance, so the database is asked
// at most once a second and never for longer than a second; /healthz (liveness) asks nothing.

const CHECK_EVERY_MS = 1_000;
const CHECK_TIMEOUT_MS = 1_000;
/** Checks with no answer for this long in a row mean "no" (issue 34): a silent database is not a busy pool. */
const NO_ANSWER_LIMIT_MS = 2_000;

let draining = false;
let checkedAt = Number.NEGATIVE_INFINITY;
let reachable = true;
let checking: Promise<boolean> | undefined;
/** When the first of the checks in a row that got no answer began. */
let unansweredSince: number | undefined;

/** From SIGTERM on: /readyz answers 503 so balancers send no more (app/server/lifecycle.server.ts). */
export function startDraining() {
  draining = true;
}

export function isDraining(): boolean {
  return draining;
}

/**
 * `select 1`, bounded. An error that says the server cannot be reached (refused, reset, shutting
 * down) is "no". No answer within the bound is "unknown": the pool may only be busy (every client
 * out, a load spike on every instance at once), and failing readiness everywhere for that would
 * turn a slowdown into an outage; requests still fail fast on their own (db/connection.ts). An
 * unknown that lasts NO_ANSWER_LIMIT_MS is "no" (databaseReachable): a server behind a cut network
 * or a stopped host never answers, and the balancer should stop sending work here meanwhile.
 */
async function selectOne(): Promise<boolean | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      sql`select 1`.execute(db()).then(
        () => true,
        (error) => !isDatabaseUnavailable(error) || BUSY_POOL.test(String((error as Error)?.message)),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** pg-pool's word for "no client free in time", which a busy pool says as well as a dead server. */
const BUSY_POOL = /timeout exceeded when trying to connect/;

/** The last answer while it is under a second old; concurrent probes share one check. */
async function databaseReachable(): Promise<boolean> {
  if (performance.now() - checkedAt < CHECK_EVERY_MS) return reachable;
  const began = performance.now();
  checking ??= selectOne().then((ok) => {
    if (ok !== undefined) {
      reachable = ok;
      unansweredSince = undefined;
    } else {
      unansweredSince ??= began;
      if (performance.now() - unansweredSince >= NO_ANSWER_LIMIT_MS) reachable = false;
    }
    checkedAt = performance.now();
    checking = undefined;
    return reachable;
  });
  return checking;
}

export async function readiness(): Promise<Readiness> {
  if (draining) return { ready: false, reason: "draining" };
  // A runner that stopped (its queue shut down under it) takes no task: send the work elsewhere.
  // `healthy` is optional on TaskRunner (app/tasks/runner.server.ts); a runner without it is fine.
  if (taskRunner().healthy?.() === false) return { ready: false, reason: "tasks" };
  if (!(await databaseReachable())) return { ready: false, reason: "database" };
  return { ready: true };
}
