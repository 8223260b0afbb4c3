import type { z } from "zod";
import type { PermissionKey } from "../access/permissions";

type TaskContext = {
  taskId: string;
  userId: string;
  /** Aborted on timeout, or when the server stops and the grace period ends. */
  signal: AbortSignal;
  /** The owner sees it live. */
  progress(fraction: number, message?: string): void;
};

export type TaskDefinition<Schema extends z.ZodType = z.ZodType> = {
  type: string;
  permission?: PermissionKey;
  /**
   * `permission` held within a team is enough to start it: the run then reaches only the people
   * the owner reaches (decision 044). Absent: held over everyone.
   */
  scoped?: boolean;
  /** `undefined` when the client sent none. */
  payload: Schema;
  /** Absent means false: a task that is not (it sends mail) is failed instead of run twice. */
  rerunnable?: boolean;
  /** The run acts with its owner's roles, which a token limited to fewer permissions would widen. */
  pageOnly?: boolean;
  timeoutMs?: number;
  /** Beyond `permission`: throws a RuleViolation (403) or NotFound (400) when its owner may not start it. */
  authorize?(payload: z.output<Schema>, userId: string): Promise<void>;
  /** The returned JSON value becomes `result`; a throw fails the task. */
  run(payload: z.output<Schema>, context: TaskContext): Promise<unknown>;
};

/** In English, as the API answers it: `new TaskError(english(key))`. */
export class TaskError extends Error {}

export function defineTask<Schema extends z.ZodType>(
  definition: TaskDefinition<Schema>,
): TaskDefinition<Schema> {
  return definition;
}
