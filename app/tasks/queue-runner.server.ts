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

// Every TASK_HEARTBEAT_MS each instance touches all tasks it runs (one statement) and sweeps: a
// task silent for STALL_BEATS beats is re-run or failed, so a dead worker's task is taken up
// within (STALL_BEATS + 1) beats, 10 s at the default 2 s (docs/operations.md, "Tasks").
const STALL_BEATS = 4;
// The sweep waits for this many beats in a row that reached the database (at start, and after an
// outage, during which every instance's beats failed alike).
const CALM_BEATS = 3;
// Re-adding is keyed by task id, so a job still waiting in a long queue is never doubled; a
// pending task without a job (lost some other way) is looked for every REQUEUE_EVERY_BEATS beats.
const REQUEUE_PENDING_AFTER_MS = 60_000;
const REQUEUE_EVERY_BEATS = 15;
// A runner that stops by itself is started again after these waits; then the process gives up.
const RESTART_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000];
const RUNNER_STABLE_MS = 60_000;

const jobPayload = z.object({ taskId: z.string().min(1) });
const migrateNotice = z.object({ migrationNumber: z.number().int() });

// graphile-worker's own tables live beside the app's schema, so each test schema has its own queue.
export function queueSchema(databaseUrl: string): string {
  const schema = new URL(databaseUrl).searchParams.get("schema");
  return schema ? `${schema}_worker` : "graphile_worker";
}

// Errors and warnings only: the worker's info lines (one per job) would drown the request log.
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
  /** The daily housekeeping the queue's cron runs once for all instances. */
  dailyCleanup: () => Promise<unknown>;
  /** The hourly housekeeping (the audit chain's signed checkpoint), once for all instances. */
  hourly?: () => Promise<unknown>;
  /** The runner could not be restarted: the process should end so its supervisor starts it again. */
  onFatal?: (error: unknown) => void;
  restartDelaysMs?: readonly number[];
  log?: (message: string, error?: unknown) => void;
};

/**
 * Tasks on PostgreSQL: the job is added in the transaction that inserts the task row, so a task
 * exists exactly when its job does; any instance's worker (or `npm run worker`) runs it through
 * the same executor as SQLite, completion still goes through the signed webhook, and the task row
 * stays the source of truth. A heartbeat on `updated_at` lets any instance's sweeper take up the
 * task of a worker that died within seconds (graphile-worker's own lock expiry is four hours).
 */
export class QueueTaskRunner implements TaskRunner {
  readonly ownsSchedule = true;
  private readonly watchdog: Watchdog<Runner>;
  private beat: ReturnType<typeof setInterval> | undefined;
  private readonly busy = new Set<"touching" | "sweeping">();
  private beats = 0;
  /**
   * Beats in a row whose statement reached the database. After an outage every instance's tasks
   * look silent until its next beat lands: the sweep waits for CALM_BEATS of ours, by which time
   * every live instance has touched its own, or it would re-run (or fail) tasks still running.
   */
  private reachedBeats = 0;
  /** graphile-worker's stop, begun when the instance began to drain (stopTaking). */
  private fetchingStopped: Promise<void> | undefined;
  private migrated: Promise<void> | undefined;
  /** The newest revision of graphile-worker's schema this process migrated to or found. */
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

  dispatch(_taskId: string) {
    // The job was added with the row (enqueue); the worker's LISTEN picks it up.
  }

  async enqueue(taskId: string, trx: Transaction<Database>) {
    await this.ensureQueue();
    await addJob(trx, this.options.schema, taskId);
  }

  /** graphile-worker's runner now running, if any. */
  get runner(): Runner | undefined {
    return this.watchdog.running;
  }

  /** False while this instance should run tasks and its queue runner is not running. */
  healthy(): boolean {
    return this.watchdog.healthy;
  }

  async start() {
    await this.ensureQueue();
    if (!this.beat) {
      this.beat = setInterval(() => this.heartbeat(), this.options.heartbeatMs);
      this.beat.unref?.();
    }
    if (this.options.work) await this.watchdog.start();
  }

  /**
   * Stops fetching jobs at once; running tasks get the grace period, then a re-runnable one is
   * handed back (pending, with a new job another instance fetches now) and any other fails. Every
   * step runs even when one before it failed: the pool is closed whatever the runner did.
   */
  /**
   * The instance began to drain: fetch no more jobs (another instance takes them now), while the
   * running tasks go on through the drain and then stop()'s grace period.
   */
  stopTaking() {
    const runner = this.watchdog.release();
    this.fetchingStopped ??= runner?.stop();
  }

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
      // Batched (even with no delay), graphile-worker's stop waits for the last jobs' completion
      // to be written; unbatched, that write could find the pool closed and leave the job locked
      // to a worker that no longer exists.
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
      // Cron in the queue runs once per schedule across all instances.
      parsedCronItems: parseCrontab("15 3 * * * daily_cleanup\n5 * * * * hourly"),
    });
  }

  /** graphile-worker's `run_task`: runs the task through the executor. */
  async runJob(taskId: string) {
    // Fetched just as this instance began to stop: the task is still pending, so it gets a new
    // job (this one is locked by us) that another instance fetches now.
    if ((await this.executor.runNow(taskId)) === "stopping") {
      await db()
        .transaction()
        .execute((trx) => addJob(trx, this.options.schema, taskId));
    }
  }

  /**
   * One statement touches every task this process runs, and this instance sweeps; each on its own,
   * so a slow sweep never holds back the beat that keeps this process's tasks from looking silent.
   */
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
      // On the queue's own pool, not the request pool: requests that hold every connection of
      // theirs (a reconnect storm after an outage) must not silence this instance's live tasks.
      const pool = this.options.pool();
      try {
        if (running.length > 0) {
          const touch = touchTasksStatement(running);
          await pool.query(touch.sql, [...touch.parameters]);
        }
        // Nothing to touch: a probe, so the count below tells whether the database answers.
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

  /**
   * Takes up tasks whose worker went silent (re-run when re-runnable, else failed), frees their
   * jobs from the dead worker, and jobs a dead worker locked before it claimed their task; now
   * and then gives pending tasks whose job was lost a new one.
   */
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
   * A `worker:migrate` notice concerns this queue only when its schema now holds a breaking
   * migration newer than the one this process knows (a newer release migrated it): then the runner
   * must stop, as graphile-worker intends, and the watchdog's restarts fail until the process is
   * upgraded. A notice from a queue in another schema is dropped.
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

/**
 * The default when the runner cannot be brought back: exit code 1 and the normal shutdown (SIGTERM
 * to this process, which drains and closes everything), so a supervisor starts a fresh process.
 */
function exitForSupervisor(error: unknown) {
  console.error("[queue] the task runner could not be restarted; stopping this process", error);
  process.exitCode = 1;
  // A shutdown handler that ends with process.exit(0) must not turn this into a clean exit: Node
  // exits with process.exitCode as it stands after the 'exit' listeners.
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
        // With the app's bounds: the heartbeat's connect gives up after 2 s like a request's.
        pool = new pg.Pool({ ...connectionSettings(e.DATABASE_URL), max: e.TASK_CONCURRENCY + 2 });
        // A dropped connection is reported by the query that needed it; these only keep the process up.
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
