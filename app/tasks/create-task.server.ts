import { type Kysely, sql, type Transaction } from "kysely";
import { z } from "zod";
import { postgresPoolOf } from "../../db/connection";
import { counterTotals } from "../../db/counted";
import type { Database } from "../../db/schema";
import { can } from "../access/check";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { env } from "../env.server";
import { bodyLimitFor } from "../http/body-limits";
import { currentRequestId } from "../http/request-id.server";
import { english, englishIssue } from "../i18n/english.server";
import { taskPayloadSchema } from "./payload";
import { taskDefinition } from "./registry.server";
import { insertTask } from "./repository.server";
import { taskRunner } from "./runner.server";

export const MAX_TASK_BODY_BYTES = bodyLimitFor("/api/tasks");

const requestSchema = z.object({ type: z.string().min(1).max(100), payload: taskPayloadSchema.optional() });

export type CreateOutcome =
  | { ok: true; taskId: string }
  | { ok: false; status: 400; issues: { path: string; message: string }[] }
  | { ok: false; status: 403; permission: string }
  | { ok: false; status: "too_many_tasks"; limit: number; retryAfterSeconds: number };

/** About one demonstration report's run: by then a slot has likely come free. */
const TASK_SLOT_RETRY_AFTER_SECONDS = 15;

function issuesOf(error: z.ZodError, prefix: string) {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path].filter(Boolean).join("."),
    // The API answers in English (docs/http-contract.md); shared schemas raise message keys.
    message: englishIssue(i),
  }));
}

/** Written in the task's own transaction once it is stored (its audit row): one commit, not two. */
export type OnCreated = (taskId: string, trx: Transaction<Database>) => Promise<void>;

/** Validates a request to start a task, stores it as pending and hands it to the runner unawaited. */
export async function createTask(
  user: SessionUser,
  body: unknown,
  onCreated?: OnCreated,
): Promise<CreateOutcome> {
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, status: 400, issues: issuesOf(parsed.error, "") };
  const { type, payload } = parsed.data;
  const definition = taskDefinition(type);
  if (!definition)
    return {
      ok: false,
      status: 400,
      issues: [{ path: "type", message: english("tasks.unknownType", { type }) }],
    };
  if (definition.permission && !can(user, definition.permission))
    return { ok: false, status: 403, permission: definition.permission };
  if (definition.pageOnly && user.via === "token")
    return { ok: false, status: 403, permission: definition.permission ?? "dashboard.access" };
  const checked = definition.payload.safeParse(payload);
  if (!checked.success) return { ok: false, status: 400, issues: issuesOf(checked.error, "payload") };

  const runner = taskRunner();
  const limit = env().TASK_MAX_OPEN_PER_USER;
  const taskId = await db()
    .transaction()
    .execute(async (trx) => {
      // Count and insert under one per-user lock, so parallel requests cannot all see a free slot.
      await lockUsersTasks(trx, user.id);
      if ((await openTaskCount(trx, user.id)) >= limit) return null;
      // The request's id goes with the task: its run and its completion webhook log under it.
      const id = await insertTask({ type, userId: user.id, payload, requestId: currentRequestId() }, trx);
      await runner.enqueue?.(id, trx);
      await onCreated?.(id, trx);
      return id;
    });
  if (!taskId)
    return { ok: false, status: "too_many_tasks", limit, retryAfterSeconds: TASK_SLOT_RETRY_AFTER_SECONDS };
  runner.dispatch(taskId);
  return { ok: true, taskId };
}

/**
 * PostgreSQL: a transaction-scoped advisory lock per user (instances share the database).
 * SQLite: one connection runs one transaction at a time, which serialises these already.
 */
async function lockUsersTasks(trx: Transaction<Database>, userId: string) {
  if (!postgresPoolOf(db())) return;
  await sql`select pg_advisory_xact_lock(hashtext(${`task-open:${userId}`}))`.execute(trx);
}

/**
 * The user's pending and running tasks, from their maintained counters (decision 010), which
 * the task triggers move in the same transaction as the rows: two primary-key reads however
 * many tasks the user ever started (counting their rows read every one of them).
 */
export async function openTaskCount(trx: Kysely<Database>, userId: string): Promise<number> {
  const open = await counterTotals(trx, userId, ["tasks.status.pending", "tasks.status.processing"]);
  return open["tasks.status.pending"] + open["tasks.status.processing"];
}
