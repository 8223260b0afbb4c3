import { can } from "../access/check";
import { reachOf, type Subject } from "../access/reach.server";
import { taskDefinition } from "./registry.server";
import { type TaskRow, toView } from "./repository.server";

/**
 * Whether `user` may still read the file a task produced: it holds what the task's permission
 * guards (users, audit rows), checked again since it may have been revoked after the run. A scoped
 * task's file holds the people its owner reached when it ran (`result.reach`: null for everyone,
 * else teams): readable while they still reach all of them. A file without `reach` was made before
 * it was recorded, by someone holding the permission over everyone. Null when allowed; else the
 * permission missing.
 */
export function missingForTaskFile(user: Subject, task: TaskRow): string | null {
  const definition = taskDefinition(task.type);
  const needed = definition?.permission;
  if (!needed) return null;
  if (!definition.scoped) return can(user, needed) ? null : needed;
  const now = reachOf(user, needed);
  if (now === null) return null;
  const made = (toView(task).result as { reach?: unknown } | null)?.reach;
  return Array.isArray(made) && made.every((team) => now.includes(team as string)) ? null : needed;
}
