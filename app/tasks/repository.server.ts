import { randomUUID } from "node:crypto";
import type { Kysely, Selectable, Transaction } from "kysely";
import { type Order, rowsAfter } from "../../db/keyset";
import { hasNoNul } from "../../db/nul";
import type { Database, TaskTable } from "../../db/schema";
import { db, type Executor, now } from "../db.server";
import { currentTraceParent } from "../http/tracing.server";
import { enqueueEvents } from "../webhooks/enqueue.server";
import type { FinalStatus, TaskView } from "./task-types";

export type TaskRow = Selectable<TaskTable>;

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function toView(row: TaskRow): TaskView {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    payload: parseJson(row.payload),
    result: parseJson(row.result),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

export async function insertTask(
  input: { type: string; userId: string; payload: unknown; requestId?: string | null },
  executor: Kysely<Database> | Transaction<Database> = db(),
): Promise<string> {
  const id = randomUUID();
  const ts = now();
  await executor
    .insertInto("task")
    .values({
      id,
      type: input.type,
      status: "pending",
      user_id: input.userId,
      payload: input.payload === undefined ? null : JSON.stringify(input.payload),
      result: null,
      created_at: ts,
      updated_at: ts,
      completed_at: null,
      request_id: input.requestId ?? null,
      // The trace it joins: the active span of the request creating it (null without tracing).
      trace_parent: currentTraceParent(),
    })
    .execute();
  return id;
}

// Keeps junk (NUL, which PostgreSQL text cannot hold) out of the query: "no such task" on both databases.
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findTask(id: string): Promise<TaskRow | undefined> {
  if (!TASK_ID.test(id)) return undefined;
  return db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirst();
}

export type Page = { tasks: TaskView[]; nextCursor: string | null };

const NEWEST_FIRST: Order = {
  column: "task.created_at",
  output: "created_at",
  id: "task.id",
  idOutput: "id",
  dir: "desc",
  nullable: false,
};

/** Each page is one range of task_user_created_id_idx, however many tasks came before. */
export async function listTasks(userId: string, limit: number, cursor?: string): Promise<Page> {
  const after = cursor ? cursor.split("|") : null;
  const rows = await rowsAfter(
    db(),
    [{ query: db().selectFrom("task").selectAll().where("task.user_id", "=", userId) }],
    NEWEST_FIRST,
    after ? { value: after[0]!, id: after[1]! } : null,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    tasks: page.map(toView),
    nextCursor: rows.length > limit && last ? `${last.created_at}|${last.id}` : null,
  };
}

/** Null when somebody else already took the task; a completion names its attempt. */
export async function claimTask(id: string): Promise<number | null> {
  const claimed = await db()
    .updateTable("task")
    .set((eb) => ({ status: "processing", updated_at: now(), attempt: eb("attempt", "+", 1) }))
    .where("id", "=", id)
    .where("status", "=", "pending")
    .returning("attempt")
    .executeTakeFirst();
  return claimed ? Number(claimed.attempt) : null;
}

/** `requeue` (the queue's new job) runs in the same transaction. */
export async function releaseTask(
  id: string,
  attempt: number,
  requeue?: (id: string, trx: Transaction<Database>) => Promise<unknown>,
  silentBefore?: string,
): Promise<boolean> {
  return db()
    .transaction()
    .execute(async (trx) => {
      let update = trx
        .updateTable("task")
        .set({ status: "pending", updated_at: now() })
        .where("id", "=", id)
        .where("status", "=", "processing")
        .where("attempt", "=", attempt);
      if (silentBefore) update = update.where("updated_at", "<", silentBefore);
      const released = await update.executeTakeFirst();
      if (Number(released.numUpdatedRows) !== 1) return false;
      await requeue?.(id, trx);
      return true;
    });
}

function touchQuery(ids: readonly string[]) {
  return db()
    .updateTable("task")
    .set({ updated_at: now() })
    .where("id", "in", ids)
    .where("status", "=", "processing");
}

export function touchTasksStatement(ids: readonly string[]): { sql: string; parameters: readonly unknown[] } {
  return touchQuery(ids).compile();
}

/** `silentBefore`: a sweep's verdict, which a heartbeat landing meanwhile overturns. */
export type Completion = {
  taskId: string;
  status: FinalStatus;
  result: unknown;
  attempt?: number;
  silentBefore?: string;
};
export type ApplyOutcome =
  | { kind: "applied"; userId: string }
  | { kind: "replayed" }
  | { kind: "superseded" }
  | { kind: "not_found" };

class UnknownTask extends Error {}
class SupersededRun extends Error {}

/**
 * Once per delivery id, in one transaction, so a replay changes nothing. Both statements write, so
 * another writer makes this wait instead of failing a read-then-write upgrade (SQLITE_BUSY_SNAPSHOT).
 */
export async function applyCompletion(
  deliveryId: string,
  completion: Completion,
  /** Last in the transaction, for what must commit with the completion (the owner's event). */
  alongside?: (trx: Executor, userId: string) => Promise<void>,
): Promise<ApplyOutcome> {
  // PostgreSQL cannot compare NUL, and no task id holds it.
  if (!hasNoNul(completion.taskId)) return { kind: "not_found" };
  try {
    return await db()
      .transaction()
      .execute(async (trx) => {
        const ts = now();
        const inserted = await trx
          .insertInto("webhook_delivery")
          .values({ id: deliveryId, received_at: ts })
          .onConflict((oc) => oc.column("id").doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { kind: "replayed" } as const;
        let update = trx
          .updateTable("task")
          .set({
            status: completion.status,
            result: JSON.stringify(completion.result ?? null),
            completed_at: ts,
            updated_at: ts,
          })
          .where("id", "=", completion.taskId);
        // Only the run holding the task may finish it.
        const attempt = completion.attempt;
        if (attempt !== undefined)
          update = update.where("status", "=", "processing").where("attempt", "=", attempt);
        if (completion.silentBefore) update = update.where("updated_at", "<", completion.silentBefore);
        const updated = await update.returning(["user_id", "type"]).executeTakeFirst();
        // Rolls the delivery id back too, so it stays usable for the run that finishes the task.
        if (!updated) {
          if (attempt === undefined) throw new UnknownTask();
          const exists = await trx
            .selectFrom("task")
            .select("id")
            .where("id", "=", completion.taskId)
            .executeTakeFirst();
          throw exists ? new SupersededRun() : new UnknownTask();
        }
        await enqueueEvents(trx, [
          {
            type: completion.status === "completed" ? "task.completed" : "task.failed",
            resource: `task:${completion.taskId}`,
            data: {
              task: {
                id: completion.taskId,
                type: updated.type,
                status: completion.status,
                userId: updated.user_id,
                completedAt: ts,
              },
            },
          },
        ]);
        await alongside?.(trx, updated.user_id);
        return { kind: "applied", userId: updated.user_id } as const;
      });
  } catch (error) {
    if (error instanceof UnknownTask) return { kind: "not_found" };
    if (error instanceof SupersededRun) return { kind: "superseded" };
    throw error;
  }
}

export async function idsWithStatus(status: "pending" | "processing"): Promise<string[]> {
  const rows = await db()
    .selectFrom("task")
    .select("id")
    .where("status", "=", status)
    .orderBy("created_at")
    .execute();
  return rows.map((r) => r.id);
}

export async function processingTasks(silentBefore?: string) {
  let query = db()
    .selectFrom("task")
    .select(["id", "type", "attempt"])
    .where("status", "=", "processing")
    .orderBy("updated_at");
  if (silentBefore) query = query.where("updated_at", "<", silentBefore);
  return query.execute();
}

export async function pruneDeliveries(olderThanMs = 3_600_000) {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  await db().deleteFrom("webhook_delivery").where("received_at", "<", cutoff).execute();
}

export async function saveArtifact(
  taskId: string,
  file: { filename: string; contentType: string; content: string },
) {
  await db()
    .insertInto("task_artifact")
    .values({
      task_id: taskId,
      filename: file.filename,
      content_type: file.contentType,
      content: file.content,
      created_at: now(),
    })
    .onConflict((oc) =>
      oc.column("task_id").doUpdateSet({ filename: file.filename, content: file.content, created_at: now() }),
    )
    .execute();
}

export async function findArtifact(taskId: string) {
  return db().selectFrom("task_artifact").selectAll().where("task_id", "=", taskId).executeTakeFirst();
}
