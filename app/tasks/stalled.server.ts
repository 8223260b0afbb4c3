import { db } from "../db.server";
import { english } from "../i18n/english.server";
import { completeTask } from "./completion.server";
import { processingTasks, releaseTask } from "./repository.server";
import type { Requeue } from "./runner.server";

/** English, as the API answers it. */
export const STALLED_ERROR = english("tasks.failure.stalled");

export type SilentTaskPolicy = {
  /** Alive whatever their row says: a beat may just be late. */
  runningHere: (id: string) => boolean;
  rerunnable: (type: string) => boolean;
  requeue: Requeue;
  dropJob: (id: string) => Promise<unknown>;
};

/** Each step is conditional on the silent run, so concurrent sweeps settle a task once and a late answer is ignored. */
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
