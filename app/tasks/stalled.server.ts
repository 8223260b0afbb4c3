import { db } from "../db.server";
import { english } from "../i18n/english.server";
import { completeTask } from "./completion.server";
import { processingTasks, releaseTask } from "./repository.server";
import type { Requeue } from "./runner.server";

/** Stored as result.error: English, as the API answers it (docs/http-contract.md). */
export const STALLED_ERROR = english("tasks.failure.stalled");

export type SilentTaskPolicy = {
  /** Tasks this process runs: alive whatever their row says (a beat may just be late). */
  runningHere: (id: string) => boolean;
  rerunnable: (type: string) => boolean;
  /** In the transaction that gives a re-runnable task back: drop the silent run's job, add a new one. */
  requeue: Requeue;
  /** After a task that is not re-runnable was failed: drop the silent run's job. */
  dropJob: (id: string) => Promise<unknown>;
};

/**
 * Settles `processing` tasks whose heartbeat stopped `silentForMs` ago (their worker died, or lost
 * the database): a re-runnable task goes back to `pending` with a new job, any other is failed.
 * Each step is conditional on the run that was silent (its attempt, its old heartbeat), so sweeps
 * of several instances at once settle a task once, and a slow worker's late answer is ignored.
 */
export async function recoverSilentTasks(
  silentForMs: number,
  policy: SilentTaskPolicy,
): Promise<{ rerun: string[]; failed: string[] }> {
  const before = new Date(Date.now() - silentForMs).toISOString();
  const rerun: string[] = [];
  const failed: string[] = [];
  for (const task of await processingTasks(before)) {
    if (policy.runningHere(task.id)) continue;
    if (policy.rerunnable(task.type)) {
      if (await releaseTask(task.id, task.attempt, policy.requeue, before)) rerun.push(task.id);
      continue;
    }
    const outcome = await completeTask(task.id, {
      taskId: task.id,
      status: "failed",
      result: { error: STALLED_ERROR },
      attempt: task.attempt,
      silentBefore: before,
    });
    // Not applied: the run beat after all, or finished; its job is still its own.
    if (outcome.kind !== "applied") continue;
    await policy.dropJob(task.id);
    failed.push(task.id);
  }
  return { rerun, failed };
}

export async function stalePendingTaskIds(olderThanMs: number): Promise<string[]> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  const rows = await db()
    .selectFrom("task")
    .select("id")
    .where("status", "=", "pending")
    .where("updated_at", "<", cutoff)
    .execute();
  return rows.map((r) => r.id);
}
