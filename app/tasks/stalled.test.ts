import { CompiledQuery } from "kysely";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { db } from "../db.server";
import { insertTask } from "./repository.server";
import { STALLED_ERROR } from "./stalled.server";

/** Ids whose worker's beat lands just after the sweep has read them (a slow worker, not a dead one). */
const beatsAfterTheLook = new Set<string>();

// doMock and fresh modules, not vi.mock: on PostgreSQL the setup file has already loaded the sweep
// (test/setup-db.ts composes the queue runner), so a hoisted mock would come too late.
vi.doMock("./repository.server", async (importOriginal) => {
  const original = await importOriginal<typeof import("./repository.server")>();
  return {
    ...original,
    processingTasks: async (...args: Parameters<typeof original.processingTasks>) => {
      const silent = await original.processingTasks(...args);
      const late = silent.map((t) => t.id).filter((id) => beatsAfterTheLook.has(id));
      if (late.length) {
        const { db } = await import("../db.server");
        const touch = original.touchTasksStatement(late);
        await db().executeQuery(CompiledQuery.raw(touch.sql, [...touch.parameters]));
      }
      return silent;
    },
  };
});

let recoverSilentTasks: typeof import("./stalled.server").recoverSilentTasks;
beforeAll(async () => {
  await setupDatabase();
  vi.resetModules();
  ({ recoverSilentTasks } = await import("./stalled.server"));
});

const row = (id: string) =>
  db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** A task its worker claimed long ago and has not beaten for since, as a dead worker leaves it. */
async function silentTask(type: string) {
  const owner = await createUser({ roles: ["user"] });
  const id = await insertTask({ type, userId: owner.id, payload: {} });
  const old = new Date(Date.now() - 10 * 60_000).toISOString();
  await db()
    .updateTable("task")
    .set({ status: "processing", attempt: 1, updated_at: old })
    .where("id", "=", id)
    .execute();
  return id;
}

const policy = () => ({
  runningHere: () => false,
  rerunnable: () => false,
  requeue: vi.fn(async () => {}),
  dropJob: vi.fn(async (_id: string) => {}),
});

describe("a sweep of silent tasks that are not safe to re-run", () => {
  it("fails the task with a clear error and drops its job", async () => {
    const id = await silentTask("broadcast.email");
    const p = policy();
    const result = await recoverSilentTasks(60_000, p);
    expect(result.failed).toContain(id);
    expect(await row(id)).toMatchObject({ status: "failed" });
    expect(JSON.parse((await row(id)).result!)).toEqual({ error: STALLED_ERROR });
    expect(p.dropJob).toHaveBeenCalledWith(id);
  });

  it("leaves the task and its job alone when its beat lands between the sweep's look and its verdict", async () => {
    const id = await silentTask("broadcast.email");
    beatsAfterTheLook.add(id);
    const p = policy();
    const result = await recoverSilentTasks(60_000, p);
    expect(result.failed).not.toContain(id);
    expect(await row(id)).toMatchObject({
      status: "processing",
      attempt: 1,
      completed_at: null,
      result: null,
    });
    expect(p.dropJob).not.toHaveBeenCalled();
  });
});
