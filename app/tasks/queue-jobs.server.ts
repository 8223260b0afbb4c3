import { type Kysely, sql, type Transaction } from "kysely";
import type pg from "pg";
import type { Database } from "../../db/schema";

/** One attempt: a retry would run work with side effects twice; the sweeper settles the row instead. */
export function addJob(trx: Transaction<Database>, schema: string, taskId: string) {
  return sql`select ${sql.id(schema)}.add_job('run_task', json_build_object('taskId', ${taskId}::text),
    max_attempts => 1, job_key => ${taskId}::text, job_key_mode => 'preserve_run_at')`.execute(trx);
}

/** graphile-worker itself would wait four hours to take a silent worker's locks. */
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

/** A worker that died between fetching a job and claiming its task leaves a locked job no sweep of `processing` tasks finds. */
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

/** Database-wide, whichever schema it concerns. */
const MIGRATE_CHANNEL = "worker:migrate";

/** graphile-worker 0.17 shuts its worker down on a breaking migration of any schema, so a queue elsewhere must not stop ours. */
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
