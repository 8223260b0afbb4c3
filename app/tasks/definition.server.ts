import type { z } from "zod";
import type { PermissionKey } from "../access/permissions";

type TaskContext = {
  taskId: string;
  userId: string;
  /** Aborted on timeout or when the server stops before the grace period ends. */
  signal: AbortSignal;
  /** Reports how far the work is (0..1); the owner sees it live. */
  progress(fraction: number, message?: string): void;
};

export type TaskDefinition<Schema extends z.ZodType = z.ZodType> = {
  type: string;
  /** Checked when the task is created, on top of dashboard.access. */
  permission?: PermissionKey;
  /** Validates the client's payload; `undefined` when the client sent none. */
  payload: Schema;
  /** Overrides TASK_TIMEOUT_MS for this type. */
  timeoutMs?: number;
  /** Does the work; the returned JSON value becomes `result`. A throw fails the task. */
  run(payload: z.output<Schema>, context: TaskContext): Promise<unknown>;
};

/**
 * A failure whose message is meant for the task's owner, stored as result.error: in English, as
 * the API answers it (docs/http-contract.md), so a definition throws `new TaskError(english(key))`.
 */
export class TaskError extends Error {}

export function defineTask<Schema extends z.ZodType>(
  definition: TaskDefinition<Schema>,
): TaskDefinition<Schema> {
  return definition;
}
