import { db, now } from "../db.server";
import { english } from "../i18n/english.server";
import { completeTask } from "./completion.server";

/** Stored as result.error: English, as the API answers it (docs/http-contract.md). */
export const STALLED_ERROR = english("tasks.failure.stalled");

/** The heartbeat of a running task: `updated_at` moves while a worker holds it. */
export async function touchTask(id: string) {
  await db()
    .updateTable("task")
    .set({ updated_at: now() })
    .where("id", "=", id)
    .where("status", "=", "processing")
    .execute();
}

/**
 * Fails `processing` tasks whose heartbeat stopped longer than `staleMs` ago. Their id is the
 * completion's delivery id, so if the worker was only slow its late webhook is a harmless replay.
 */
export async function recoverStalledTasks(staleMs: number): Promise<string[]> {
  const cutoff = new Date(Date.now() - staleMs).toISOString();
  const rows = await db()
    .selectFrom("task")
    .select("id")
    .where("status", "=", "processing")
    .where("updated_at", "<", cutoff)
    .execute();
  for (const { id } of rows) {
    await completeTask(id, { taskId: id, status: "failed", result: { error: STALLED_ERROR } });
  }
  return rows.map((r) => r.id);
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
