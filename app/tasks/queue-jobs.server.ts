import { type Kysely, sql, type Transaction } from "kysely";
import type pg from "pg";
import type { Database } from "../../db/schema";

// graphile-worker's tables, as this app uses them: one `run_task` job per task, keyed by task id.

/**
 * One attempt: a retry would run work with side effects twice; the sweeper settles the row
 * instead. On a job that is locked (running, or held by a dead worker), add_job clears that job's
 * key and adds a new one, so a task handed back always gets a job that can be fetched.
 */
export function addJob(trx: Transaction<Database>, schema: string, taskId: string) {
  return sql`select ${sql.id(schema)}.add_job('run_task', json_build_object('taskId', ${taskId}::text),
    max_attempts => 1, job_key => ${taskId}::text, job_key_mode => 'preserve_run_at')`.execute(trx);
}

/**
 * Deletes the jobs of a task whose run was given up (found by payload: a job handed on has lost its
 * key; one still waiting is of no use either), then unlocks whatever else their workers held:
 * those workers went silent, and graphile-worker itself would wait four hours to take their locks.
 */
export async function dropGivenUpJobs(
  executor: Kysely<Database> | Transaction<Database>,
  schema: string,
  taskId: string,
) {
  const dropped = await sql<{ locked_by: string | null }>`delete from ${sql.id(schema)}._private_jobs
    where payload->>'taskId' = ${taskId} returning locked_by`.execute(executor);
  const workers = [...new Set(dropped.rows.map((r) => r.locked_by).filter((w): w is string => !!w))];
  if (workers.length > 0)
    await sql`select ${sql.id(schema)}.force_unlock_workers(${workers}::text[])`.execute(executor);
}

/**
 * A worker that died between fetching a job and claiming its task (or after its task ended) leaves
 * a locked job no sweep of `processing` tasks finds. A `run_task` job locked longer than
 * `olderThanMs` (database time) whose task is not `processing` has no live worker: it is deleted,
 * its workers' other locks are freed, and the ids of its tasks still `pending` are returned for a
 * new job.
 */
export async function dropOrphanedJobs(
  executor: Kysely<Database>,
  schema: string,
  olderThanMs: number,
): Promise<string[]> {
  const q = sql.id(schema);
  const dropped = await sql<{ task_id: string; locked_by: string | null; status: string | null }>`
    with orphaned as (
      delete from ${q}._private_jobs as jobs
      using ${q}._private_tasks as tasks
      where tasks.id = jobs.task_id and tasks.identifier = 'run_task'
        and jobs.locked_at < now() - make_interval(secs => ${olderThanMs / 1000})
        and not exists (select 1 from task where task.id = jobs.payload->>'taskId' and task.status = 'processing')
      returning jobs.payload->>'taskId' as task_id, jobs.locked_by
    )
    select orphaned.task_id, orphaned.locked_by, task.status
    from orphaned left join task on task.id = orphaned.task_id`.execute(executor);
  const workers = [...new Set(dropped.rows.map((r) => r.locked_by).filter((w): w is string => !!w))];
  if (workers.length > 0) await sql`select ${q}.force_unlock_workers(${workers}::text[])`.execute(executor);
  return dropped.rows.filter((r) => r.status === "pending").map((r) => r.task_id);
}

/** graphile-worker's notice of a new schema revision: database-wide, whichever schema it concerns. */
const MIGRATE_CHANNEL = "worker:migrate";

/**
 * graphile-worker 0.17 LISTENs on `worker:migrate` and shuts its worker down (exit code 57) on any
 * breaking migration in the whole database, also of a queue in another schema. Every client of the
 * queue's pool holds such notices back and passes one on only when `ours` says it concerns this
 * queue's schema, so a queue elsewhere never stops ours while a newer release of ours still does.
 */
export function isolateMigrationNotices(
  pool: pg.Pool,
  ours: (payload: string | undefined) => Promise<boolean>,
  onIgnored: (payload: string | undefined) => void,
) {
  pool.on("connect", (client) => {
    const emit = client.emit.bind(client);
    client.emit = ((event: string | symbol, ...args: unknown[]) => {
      const message = args[0] as pg.Notification | undefined;
      if (event !== "notification" || message?.channel !== MIGRATE_CHANNEL) return emit(event, ...args);
      void ours(message.payload).then(
        (pass) => (pass ? emit(event, ...args) : onIgnored(message.payload)),
        // Unknown (the database is away): passing it on could stop a healthy worker for nothing.
        () => onIgnored(message.payload),
      );
      return true;
    }) as typeof client.emit;
  });
}
