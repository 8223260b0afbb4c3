import { z } from "zod";
import { counterTotals } from "../../db/counted";
import { cursorValue, type KeysetPage, keysetPage, type Order, rowsAfter } from "../../db/keyset";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { TASK_REGISTRY } from "./registry.server";
import { findTask, type TaskRow, toView } from "./repository.server";
import { TASK_STATUSES, type TaskView } from "./task-types";

const PAGE_SIZE = 25;
const FINISHED = ["completed", "failed"] as const;

/** A value that names no type or status falls back to "any": it only widens one's own list. */
const taskHistoryQuery = z.object({
  type: z
    .string()
    .refine((type) => TASK_REGISTRY.has(type))
    .catch(""),
  status: z.enum(TASK_STATUSES).or(z.literal("")).catch(""),
  after: z.string().max(2000).optional().catch(undefined),
  before: z.string().max(2000).optional().catch(undefined),
});

export type TaskHistoryQuery = z.infer<typeof taskHistoryQuery>;

export function parseTaskHistoryQuery(url: URL): TaskHistoryQuery {
  return taskHistoryQuery.parse(Object.fromEntries(url.searchParams));
}

const NEWEST_FIRST: Order = {
  column: "task.created_at",
  output: "created_at",
  id: "task.id",
  idOutput: "id",
  dir: "desc",
  nullable: false,
};

export type TaskHistory = KeysetPage<TaskView> & {
  finished: number;
};

/** One range of task_user_created_id_idx, with the filters applied along it. */
export async function taskHistory(userId: string, q: TaskHistoryQuery): Promise<TaskHistory> {
  let own = db().selectFrom("task").selectAll().where("task.user_id", "=", userId);
  if (q.type) own = own.where("task.type", "=", q.type);
  if (q.status) own = own.where("task.status", "=", q.status);
  const [page, counts] = await Promise.all([
    keysetPage<TaskRow>(q, {
      key: "created_at.desc",
      size: PAGE_SIZE,
      value: cursorValue.timestamp,
      nullable: false,
      positionOf: (row) => ({ value: row.created_at, id: row.id }),
      fetch: (after, reverse, limit) =>
        rowsAfter(
          db(),
          [{ query: own }],
          reverse ? { ...NEWEST_FIRST, dir: "asc" } : NEWEST_FIRST,
          after,
          limit,
        ),
    }),
    counterTotals(db(), userId, ["tasks.status.completed", "tasks.status.failed"]),
  ]);
  return {
    ...page,
    rows: page.rows.map(toView),
    finished: counts["tasks.status.completed"] + counts["tasks.status.failed"],
  };
}

type Owner = { id: string; email: string };

/** Someone else's task is "not found", so ids cannot be probed; a running one is refused, or its runner would finish a row that is gone. */
export async function clearTask(owner: Owner, taskId: string, origin: AuditOrigin) {
  const task = await findTask(taskId);
  if (!task || task.user_id !== owner.id) throw new NotFound("tasks.notFound");
  if (!(FINISHED as readonly string[]).includes(task.status)) throw new RuleViolation("tasks.stillRunning");
  await db()
    .transaction()
    .execute(async (trx) => {
      // Guarded again in the statement: a task that is no longer finished and the owner's stays.
      const gone = await trx
        .deleteFrom("task")
        .where("id", "=", task.id)
        .where("user_id", "=", owner.id)
        .where("status", "in", FINISHED)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) throw new NotFound("tasks.notFound");
      await audit(
        origin,
        {
          action: "task.clear",
          actor: owner,
          target: { type: "task", id: task.id },
          details: { type: task.type, status: task.status },
        },
        trx,
      );
    });
}

export async function clearFinishedTasks(owner: Owner, origin: AuditOrigin): Promise<number> {
  return db()
    .transaction()
    .execute(async (trx) => {
      const gone = await trx
        .deleteFrom("task")
        .where("user_id", "=", owner.id)
        .where("status", "in", FINISHED)
        .executeTakeFirst();
      const count = Number(gone.numDeletedRows);
      if (count > 0)
        await audit(origin, { action: "task.clear", actor: owner, target: null, details: { count } }, trx);
      return count;
    });
}
