import { Logger, parseCrontab, type Runner, run, runMigrations } from "graphile-worker";
import type { Transaction } from "kysely";
import pg from "pg";
import { z } from "zod";
import { connectionSettings } from "../../db/connection";
import { withSchemaChangeLock } from "../../db/migrate";
import type { Database } from "../../db/schema";
import { db } from "../db.server";
import { env } from "../env.server";
import { addJob, dropGivenUpJobs, dropOrphanedJobs, isolateMigrationNotices } from "./queue-jobs.server";
import { Watchdog } from "./queue-watchdog.server";
import { taskDefinition } from "./registry.server";
import { touchTasksStatement } from "./repository.server";
import type { InProcessTaskRunner, TaskRunner } from "./runner.server";
import { recoverSilentTasks, stalePendingTaskIds } from "./stalled.server";

// A task silent for STALL_BEATS heartbeats is re-run or failed, so a dead worker's task is taken
// up within seconds (docs/operations.md, "Tasks").
const STALL_BEATS = 4;
// After an outage every instance's beats failed alike: the sweep waits for this many good beats.
const CALM_BEATS = 3;
// Re-adding is keyed by task id, so a job still waiting in a long queue is never doubled.
const REQUEUE_PENDING_AFTER_MS = 60_000;
const REQUEUE_EVERY_BEATS = 15;
// A runner that stops by itself is started again after these waits; then the process gives up.
const RESTART_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000];
const RUNNER_STABLE_MS = 60_000;

const jobPayload = z.object({ taskId: z.string().min(1) });
const migrateNotice = z.object({ migrationNumber: z.number().int() });

export function queueSchema(databaseUrl: string): string {
  const schema = new URL(databaseUrl).searchParams.get("schema");
  return schema ? `${schema}_worker` : "graphile_worker";
}

// Errors and warnings only: one info line per job would drown the request log.
const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`[queue] ${message}`);
});

export type QueueRunnerOptions = {
  pool: () => pg.Pool;
  closePool: () => Promise<void>;
  schema: string;
  work: boolean;
  concurrency: number;
  heartbeatMs: number;
  dailyCleanup: () => Promise<unknown>;
  hourly?: () => Promise<unknown>;
  onFatal?: (error: unknown) => void;
  restartDelaysMs?: readonly number[];
  log?: (message: string, error?: unknown) => void;
};

/**
 * The job is added in the transaction that inserts the task row, and a heartbeat lets any instance
 * take up a dead worker's task within seconds (graphile-worker's own lock expiry is four hours).
 */
export class QueueTaskRunner implements TaskRunner {
  readonly ownsSchedule = true;
  private readonly watchdog: Watchdog<Runner>;
  private beat: ReturnType<typeof setInterval> | undefined;
  private readonly busy = new Set<"touching" | "sweeping">();
  private beats = 0;
  /** Until every live instance has beaten after an outage, a sweep would take up tasks still running. */
  private reachedBeats = 0;
  private fetchingStopped: Promise<void> | undefined;
  /** graphile-worker's stop resolves after a fetch already under way: its job must not run here. */
  private draining = false;
  private migrated: Promise<void> | undefined;
  private knownRevision = Number.POSITIVE_INFINITY;

  constructor(
    private readonly executor: InProcessTaskRunner,
    private readonly options: QueueRunnerOptions,
  ) {
    executor.requeueWith((taskId, trx) => addJob(trx, options.schema, taskId));
    this.watchdog = new Watchdog(() => this.launch(), {
      delaysMs: options.restartDelaysMs ?? RESTART_DELAYS_MS,
      stableMs: RUNNER_STABLE_MS,
      onFatal: options.onFatal ?? exitForSupervisor,
      log: (m, e) => this.log(m, e),
    });
  }

  private log(message: string, error?: unknown) {
    (this.options.log ?? ((m, e) => console.error(m, e ?? "")))(message, error);
  }

  dispatch(_taskId: string) {}

  async enqueue(taskId: string, trx: Transaction<Database>) {
    await this.ensureQueue();
    await addJob(trx, this.options.schema, taskId);
  }

  get runner(): Runner | undefined {
    return this.watchdog.running;
  }

  healthy(): boolean {
    return this.watchdog.healthy;
  }

  async start() {
    this.draining = false;
    await this.ensureQueue();
    if (!this.beat) {
      this.beat = setInterval(() => this.heartbeat(), this.options.heartbeatMs);
      this.beat.unref?.();
    }
    if (this.options.work) await this.watchdog.start();
  }

  /** The instance began to drain: another instance takes new jobs, running tasks go on. */
  stopTaking() {
    this.draining = true;
    const runner = this.watchdog.release();
    this.fetchingStopped ??= runner?.stop();
  }

  /** Every step runs even when one before it failed: the pool is closed whatever the runner did. */
  async stop() {
    const runner = this.watchdog.release();
    const steps = await Promise.allSettled([this.executor.stop(), runner?.stop(), this.fetchingStopped]);
    this.fetchingStopped = undefined;
    // Beating until here: a task finishing in its grace period must not look silent elsewhere.
    clearInterval(this.beat);
    this.beat = undefined;
    this.migrated = undefined;
    const closed = await Promise.allSettled([this.options.closePool()]);
    for (const step of [...steps, ...closed])
      if (step.status === "rejected")
        this.log("[queue] a step of stopping the task runner failed", step.reason);
  }

  private async launch(): Promise<Runner> {
    return run({
      pgPool: this.options.pool(),
      schema: this.options.schema,
      concurrency: this.options.concurrency,
      noHandleSignals: true,
      pollInterval: 2_000,
      logger,
      // Batched, graphile-worker's stop waits for the last completions to be written; unbatched,
      // a write could find the pool closed and leave the job locked to a worker that is gone.
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      taskList: {
        run_task: async (payload) => this.runJob(jobPayload.parse(payload).taskId),
        daily_cleanup: async () => {
          await this.options.dailyCleanup();
        },
        hourly: async () => {
          await this.options.hourly?.();
        },
      },
      parsedCronItems: parseCrontab("15 3 * * * daily_cleanup\n5 * * * * hourly"),
    });
  }

  async runJob(taskId: string) {
    // Fetched just as this instance began to drain or stop: the task gets a new job another instance fetches.
    if (this.draining || (await this.executor.runNow(taskId)) === "stopping") {
      await db()
        .transaction()
        .execute((trx) => addJob(trx, this.options.schema, taskId));
    }
  }

  /** Beat and sweep run apart, so a slow sweep never holds back the beat. */
  private heartbeat() {
    const once = (busy: "touching" | "sweeping", work: () => Promise<unknown>) => {
      if (this.busy.has(busy)) return;
      this.busy.add(busy);
      void work()
        .catch((error) => this.log(`[queue] ${busy} failed`, error))
        .finally(() => this.busy.delete(busy));
    };
    once("touching", async () => {
      const running = this.executor.runningTaskIds();
      // The queue's own pool: a request pool held by a reconnect storm must not silence live tasks.
      const pool = this.options.pool();
      try {
        if (running.length > 0) {
          const touch = touchTasksStatement(running);
          await pool.query(touch.sql, [...touch.parameters]);
        }
        if (running.length === 0 && this.reachedBeats < CALM_BEATS) await pool.query("select 1");
        this.reachedBeats++;
      } catch (error) {
        this.reachedBeats = 0;
        throw error;
      }
    });
    if (this.reachedBeats < CALM_BEATS) return;
    once("sweeping", () =>
      this.sweep().catch((error) => {
        this.reachedBeats = 0;
        throw error;
      }),
    );
  }

  async sweep() {
    const schema = this.options.schema;
    const result = await recoverSilentTasks(this.options.heartbeatMs * STALL_BEATS, {
      runningHere: (id) => this.executor.runningTaskIds().includes(id),
      rerunnable: (type) => taskDefinition(type)?.rerunnable === true,
      requeue: async (id, trx) => {
        await dropGivenUpJobs(trx, schema, id);
        await addJob(trx, schema, id);
      },
      dropJob: (id) => dropGivenUpJobs(db(), schema, id),
    });
    for (const id of await dropOrphanedJobs(db(), schema, this.options.heartbeatMs * STALL_BEATS)) {
      await db()
        .transaction()
        .execute((trx) => addJob(trx, schema, id));
    }
    if (this.beats++ % REQUEUE_EVERY_BEATS === 0) {
      for (const id of await stalePendingTaskIds(REQUEUE_PENDING_AFTER_MS)) {
        await db()
          .transaction()
          .execute((trx) => addJob(trx, schema, id));
      }
    }
    return result;
  }

  private ensureQueue(): Promise<void> {
    this.migrated ??= withSchemaChangeLock(db(), async () => {
      await runMigrations({ pgPool: this.options.pool(), schema: this.options.schema, logger });
      this.knownRevision = await this.revision();
    });
    this.migrated.catch(() => {
      this.migrated = undefined;
    });
    return this.migrated;
  }

  private async revision(): Promise<number> {
    const { rows } = await this.options
      .pool()
      .query(`select coalesce(max(id), 0) as id from ${sqlIdentifier(this.options.schema)}.migrations`);
    return Number(rows[0]?.id ?? 0);
  }

  /**
   * Only a breaking migration newer than this process knows (a newer release) stops the runner, as
   * graphile-worker intends; a notice from a queue in another schema is dropped.
   */
  async migrationConcernsUs(payload: string | undefined): Promise<boolean> {
    let notice: { migrationNumber: number };
    try {
      notice = migrateNotice.parse(JSON.parse(payload ?? ""));
    } catch {
      return false;
    }
    if (notice.migrationNumber <= this.knownRevision) return false;
    const { rows } = await this.options
      .pool()
      .query(`select 1 from ${sqlIdentifier(this.options.schema)}.migrations where id = $1 and breaking`, [
        notice.migrationNumber,
      ]);
    return rows.length > 0;
  }
}

function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Exit code 1 through the normal shutdown, so a supervisor starts a fresh process. */
function exitForSupervisor(error: unknown) {
  console.error("[queue] the task runner could not be restarted; stopping this process", error);
  process.exitCode = 1;
  // Node exits with process.exitCode as it stands after the 'exit' listeners, whatever shutdown set.
  process.once("exit", () => {
    process.exitCode = 1;
  });
  process.kill(process.pid, "SIGTERM");
}

export function createQueueRunner(
  executor: InProcessTaskRunner,
  dailyCleanup: () => Promise<unknown> = async () => {},
  overrides: Partial<
    Pick<QueueRunnerOptions, "onFatal" | "restartDelaysMs" | "log" | "heartbeatMs" | "hourly">
  > = {},
): QueueTaskRunner {
  const e = env();
  let pool: pg.Pool | undefined;
  const runner: QueueTaskRunner = new QueueTaskRunner(executor, {
    // A pool of its own: the app's pool returns JSON as text, graphile-worker expects objects.
    pool: () => {
      if (!pool) {
        pool = new pg.Pool({ ...connectionSettings(e.DATABASE_URL), max: e.TASK_CONCURRENCY + 2 });
        pool.on("error", () => {});
        pool.on("connect", (client) => client.on("error", () => {}));
        isolateMigrationNotices(
          pool,
          (payload) => runner.migrationConcernsUs(payload),
          (payload) => console.error(`[queue] ignored another schema's migration notice ${payload ?? ""}`),
        );
      }
      return pool;
    },
    closePool: async () => {
      const closing = pool;
      pool = undefined;
      await closing?.end();
    },
    schema: queueSchema(e.DATABASE_URL),
    work: e.TASK_WORKER === "in-app",
    concurrency: e.TASK_CONCURRENCY,
    heartbeatMs: e.TASK_HEARTBEAT_MS,
    dailyCleanup,
    ...overrides,
  });
  return runner;
}
