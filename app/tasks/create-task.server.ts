import { z } from "zod";
import { can } from "../access/check";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { taskPayloadSchema } from "./payload";
import { taskDefinition } from "./registry.server";
import { insertTask } from "./repository.server";
import { taskRunner } from "./runner.server";

export const MAX_TASK_BODY_BYTES = 64 * 1024;

const requestSchema = z.object({ type: z.string().min(1).max(100), payload: taskPayloadSchema.optional() });

export type CreateOutcome =
  | { ok: true; taskId: string }
  | { ok: false; status: 400; issues: { path: string; message: string }[] }
  | { ok: false; status: 403; permission: string };

function issuesOf(error: z.ZodError, prefix: string) {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path].filter(Boolean).join("."),
    message: i.message,
  }));
}

/** Validates a request to start a task, stores it as pending and hands it to the runner unawaited. */
export async function createTask(user: SessionUser, body: unknown): Promise<CreateOutcome> {
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, status: 400, issues: issuesOf(parsed.error, "") };
  const { type, payload } = parsed.data;
  const definition = taskDefinition(type);
  if (!definition)
    return { ok: false, status: 400, issues: [{ path: "type", message: `Unknown task type "${type}".` }] };
  if (definition.permission && !can(user, definition.permission))
    return { ok: false, status: 403, permission: definition.permission };
  const checked = definition.payload.safeParse(payload);
  if (!checked.success) return { ok: false, status: 400, issues: issuesOf(checked.error, "payload") };

  const runner = taskRunner();
  const taskId = runner.enqueue
    ? await db()
        .transaction()
        .execute(async (trx) => {
          const id = await insertTask({ type, userId: user.id, payload }, trx);
          await runner.enqueue!(id, trx);
          return id;
        })
    : await insertTask({ type, userId: user.id, payload });
  runner.dispatch(taskId);
  return { ok: true, taskId };
}
