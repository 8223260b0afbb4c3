import type { z } from "zod";
import type { PermissionKey } from "../access/permissions";

type TaskContext = {
  taskId: string;
  userId: string;
  /** Aborted on timeout, or when the server stops and the grace period ends (a re-runnable task is then run again elsewhere). */
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
  /**
   * Whether running it again from the start is harmless: true for work without effects outside
   * its own result (a report, an export). A task whose worker died or whose server stopped before
   * it finished then runs again on another worker; one that is not (it sends mail) is failed with
   * a clear result.error instead, so its effects never happen twice. Absent means false.
   */
  rerunnable?: boolean;
  /**
   * Started from its page only, never with an API token: the run acts with its owner's roles, which
   * a token limited to fewer permissions would otherwise widen (users.import grants roles).
   */
  pageOnly?: boolean;
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
