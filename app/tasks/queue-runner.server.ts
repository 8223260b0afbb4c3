import { Logger, parseCrontab, type Runner, run, runMigrations } from "graphile-worker";
import { sql, type Transaction } from "kysely";
import pg from "pg";
import { z } from "zod";
import { postgresConfig } from "../../db/connection";
import { withSchemaChangeLock } from "../../db/migrate";
import type { Database } from "../../db/schema";
import { db } from "../db.server";
import { env } from "../env.server";
import type { InProcessTaskRunner, TaskRunner } from "./runner.server";
import { recoverStalledTasks, stalePendingTaskIds, touchTask } from "./stalled.server";

// A running task proves it is alive every heartbeat (TASK_HEARTBEAT_MS); every instance sweeps
// every SWEEP_FACTOR beats and fails a task silent for STALL_FACTOR beats (sweeps are idempotent).
const SWEEP_FACTOR = 3;
const STALL_FACTOR = 6;
// Re-adding is keyed by task id, so a job still waiting in a long queue is never doubled.
const REQUEUE_PENDING_AFTER_MS = 60_000;

const jobPayload = z.object({ taskId: z.string().min(1) });

// graphile-worker's own tables live beside the app's schema, so each test schema has its own queue.
export function queueSchema(databaseUrl: string): string {
  const schema = new URL(databaseUrl).searchParams.get("schema");
  return schema ? `${schema}_worker` : "graphile_worker";
}

// Errors and warnings only: the worker's info lines (one per job) would drown the request log.
const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`[queue] ${message}`);
});

/**
 * Tasks on PostgreSQL: the job is added in the transaction that inserts the task row, so a task
 * exists exactly when its job does; any instance's worker (or `npm run worker`) runs it through
 * the same executor as SQLite, completion still goes through the signed webhook, and the task row
 * stays the source of truth. A heartbeat on `updated_at` lets a sweeper fail the task of a worker
 * that died within a minute (graphile-worker's own lock expiry is four hours).
 */
export class QueueTaskRunner implements TaskRunner {
  readonly ownsSchedule = true;
  private runner: Runner | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private migrated: Promise<void> | undefined;

  constructor(
    private readonly executor: InProcessTaskRunner,
    private readonly options: {
      pool: () => pg.Pool;
      closePool: () => Promise<void>;
      schema: string;
      work: boolean;
      concurrency: number;
      heartbeatMs: number;
      /** The daily housekeeping the queue's cron runs once for all instances. */
      dailyCleanup: () => Promise<unknown>;
    },
  ) {}

  dispatch(_taskId: string) {
    // The job was added with the row (enqueue); the worker's LISTEN picks it up.
  }

  async enqueue(taskId: string, trx: Transaction<Database>) {
    await this.ensureQueue();
    await addJob(trx, this.options.schema, taskId);
  }

  async start() {
    await this.ensureQueue();
    if (!this.sweeper) {
      this.sweeper = setInterval(
        () => void this.sweep().catch((e) => console.error("[queue] sweep failed", e)),
        this.options.heartbeatMs * SWEEP_FACTOR,
      );
      this.sweeper.unref?.();
    }
    if (!this.options.work || this.runner) return;
    this.runner = await run({
      pgPool: this.options.pool(),
      schema: this.options.schema,
      concurrency: this.options.concurrency,
      noHandleSignals: true,
      pollInterval: 2_000,
      logger,
      taskList: {
        run_task: async (payload) => this.runJob(jobPayload.parse(payload).taskId),
        daily_cleanup: async () => {
          await this.options.dailyCleanup();
        },
      },
      // Cron in the queue runs once per schedule across all instances.
      parsedCronItems: parseCrontab("15 3 * * * daily_cleanup"),
    });
  }

  async stop() {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    const runner = this.runner;
    this.runner = undefined;
    // Together: the queue stops fetching while running tasks get their grace period. A job
    // fetched in between finds the executor stopping and leaves its task pending, which the
    // sweeper of a live instance gives a new job.
    await Promise.all([this.executor.stop(), runner?.stop()]);
    this.migrated = undefined;
    await this.options.closePool();
  }

  private async runJob(taskId: string) {
    const beat = setInterval(() => void touchTask(taskId).catch(() => {}), this.options.heartbeatMs);
    beat.unref?.();
    try {
      await this.executor.runNow(taskId);
    } finally {
      clearInterval(beat);
    }
  }

  /** Fails tasks whose worker went silent; gives pending tasks whose job was lost a new one. */
  async sweep() {
    await recoverStalledTasks(this.options.heartbeatMs * STALL_FACTOR);
    for (const id of await stalePendingTaskIds(REQUEUE_PENDING_AFTER_MS)) {
      await db()
        .transaction()
        .execute((trx) => addJob(trx, this.options.schema, id));
    }
  }

  private ensureQueue(): Promise<void> {
    this.migrated ??= withSchemaChangeLock(db(), () =>
      runMigrations({ pgPool: this.options.pool(), schema: this.options.schema, logger }),
    );
    this.migrated.catch(() => {
      this.migrated = undefined;
    });
    return this.migrated;
  }
}

// One attempt: a retry would run work with side effects twice; the sweeper settles the row instead.
function addJob(trx: Transaction<Database>, schema: string, taskId: string) {
  return sql`select ${sql.id(schema)}.add_job('run_task', json_build_object('taskId', ${taskId}::text),
    max_attempts => 1, job_key => ${taskId}::text, job_key_mode => 'preserve_run_at')`.execute(trx);
}

export function createQueueRunner(
  executor: InProcessTaskRunner,
  dailyCleanup: () => Promise<unknown> = async () => {},
): QueueTaskRunner {
  const e = env();
  let pool: pg.Pool | undefined;
  return new QueueTaskRunner(executor, {
    // A pool of its own: the app's pool returns JSON as text, graphile-worker expects objects.
    pool: () => {
      if (!pool) {
        const { connectionString, options } = postgresConfig(e.DATABASE_URL);
        pool = new pg.Pool({ connectionString, options, max: e.TASK_CONCURRENCY + 2 });
        // A dropped connection is reported by the query that needed it; these only keep the process up.
        pool.on("error", () => {});
        pool.on("connect", (client) => client.on("error", () => {}));
      }
      return pool;
    },
    closePool: async () => {
      await pool?.end();
      pool = undefined;
    },
    schema: queueSchema(e.DATABASE_URL),
    work: e.TASK_WORKER === "in-app",
    concurrency: e.TASK_CONCURRENCY,
    heartbeatMs: e.TASK_HEARTBEAT_MS,
    dailyCleanup,
  });
}
