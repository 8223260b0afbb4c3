import { type Kysely, sql, type Transaction } from "kysely";
import { z } from "zod";
import { postgresPoolOf } from "../../db/connection";
import { counterTotals } from "../../db/counted";
import type { Database } from "../../db/schema";
import { can } from "../access/check";
import { mayAnywhere } from "../access/reach.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { env } from "../env.server";
import { bodyLimitFor } from "../http/body-limits";
import { currentRequestId } from "../http/request-id.server";
import { english, englishIssue } from "../i18n/english.server";
import { taskPayloadSchema } from "./payload";
import { taskDefinition } from "./registry.server";
import { insertTask } from "./repository.server";
import { taskRunner } from "./runner.server";

export const MAX_TASK_BODY_BYTES = bodyLimitFor("/api/tasks");

export const requestSchema = z.object({
  type: z.string().min(1).max(100),
  payload: taskPayloadSchema.optional(),
});

export type CreateOutcome =
  | { ok: true; taskId: string }
  | { ok: false; status: 400; issues: { path: string; message: string }[] }
  | { ok: false; status: 403; permission: string }
  | { ok: false; status: "too_many_tasks"; limit: number; retryAfterSeconds: number };

const TASK_SLOT_RETRY_AFTER_SECONDS = 15;

function issuesOf(error: z.ZodError, prefix: string) {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path].filter(Boolean).join("."),
    // The API answers in English; shared schemas raise message keys.
    message: englishIssue(i),
  }));
}

/** Written in the task's own transaction: one commit, not two. */
export type OnCreated = (taskId: string, trx: Transaction<Database>) => Promise<void>;

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
  const held = definition.scoped ? mayAnywhere : can;
  if (definition.permission && !held(user, definition.permission))
    return { ok: false, status: 403, permission: definition.permission };
  if (definition.pageOnly && user.via === "token")
    return { ok: false, status: 403, permission: definition.permission ?? "dashboard.access" };
  const checked = definition.payload.safeParse(payload);
  if (!checked.success) return { ok: false, status: 400, issues: issuesOf(checked.error, "payload") };
  if (definition.authorize)
    try {
      await definition.authorize(checked.data, user.id);
    } catch (error) {
      if (error instanceof RuleViolation)
        return { ok: false, status: 403, permission: definition.permission ?? "dashboard.access" };
      if (error instanceof NotFound)
        return { ok: false, status: 400, issues: [{ path: "payload", message: error.message }] };
      throw error;
    }

  const runner = taskRunner();
  const limit = env().TASK_MAX_OPEN_PER_USER;
  const taskId = await db()
    .transaction()
    .execute(async (trx) => {
      // Count and insert under one per-user lock, so parallel requests cannot all see a free slot.
      await lockUsersTasks(trx, user.id);
      if ((await openTaskCount(trx, user.id)) >= limit) return null;
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

/** SQLite's one connection serialises these already. */
async function lockUsersTasks(trx: Transaction<Database>, userId: string) {
  if (!postgresPoolOf(db())) return;
  await sql`select pg_advisory_xact_lock(hashtext(${`task-open:${userId}`}))`.execute(trx);
}

/** Maintained counters (decision 010): two primary-key reads however many tasks the user ever started. */
export async function openTaskCount(trx: Kysely<Database>, userId: string): Promise<number> {
  const open = await counterTotals(trx, userId, ["tasks.status.pending", "tasks.status.processing"]);
  return open["tasks.status.pending"] + open["tasks.status.processing"];
}
