import { sql } from "kysely";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { db } from "../db.server";
import type { Readiness } from "../http/node-server.server";
import { taskRunner } from "../tasks/runner.server";

// GET /readyz: balancers ask every second, so the database is asked at most once a second, bounded.

const CHECK_EVERY_MS = 1_000;
const CHECK_TIMEOUT_MS = 1_000;
/** A silent database is not a busy pool. */
const NO_ANSWER_LIMIT_MS = 2_000;

let draining = false;
let checkedAt = Number.NEGATIVE_INFINITY;
let reachable = true;
let checking: Promise<boolean> | undefined;
let unansweredSince: number | undefined;

export function startDraining() {
  draining = true;
}

export function isDraining(): boolean {
  return draining;
}

/**
 * No answer in time is "unknown", as the pool may only be busy and failing readiness everywhere would
 * turn a slowdown into an outage; an unknown lasting NO_ANSWER_LIMIT_MS is "no".
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

const BUSY_POOL = /timeout exceeded when trying to connect/;

/** Concurrent probes share one check. */
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
  // A runner that stopped takes no task: send the work elsewhere.
  if (taskRunner().healthy?.() === false) return { ready: false, reason: "tasks" };
  if (!(await databaseReachable())) return { ready: false, reason: "database" };
  return { ready: true };
}
