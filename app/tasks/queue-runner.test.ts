import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { deliverThroughRoute } from "../../test/tasks";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../events/event-types";
import { action } from "../routes/api.tasks";
import { createQueueRunner, type QueueTaskRunner, queueSchema } from "./queue-runner.server";
import { InProcessTaskRunner, setTaskRunner } from "./runner.server";
import { STALLED_ERROR } from "./stalled.server";

const row = (id: string) =>
  db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe.skipIf(!onPostgres)("graphile-worker queue (PostgreSQL)", () => {
  let queue: QueueTaskRunner;
  beforeAll(async () => {
    await setupDatabase();
    queue = createQueueRunner(new InProcessTaskRunner({ deliver: deliverThroughRoute }));
    setTaskRunner(queue);
    await queue.start();
  });
  afterAll(() => queue.stop());

  async function post(cookie: string, body: unknown) {
    const req = request("/api/tasks", {
      method: "POST",
      cookie,
      body: JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    });
    return run(() => action(args(req)));
  }

  it("runs a task posted to /api/tasks on the worker and completes it through the webhook", async () => {
    const user = await signedIn(["user"]);
    const events: SystemEvent[] = [];
    systemBus().subscribe(SYSTEM_EVENT_CHANNEL, user.id, (e) => events.push(e));
    const res = await post(user.cookie, { type: "report.generate", payload: { durationMs: 0 } });
    expect(res.status).toBe(202);
    const { taskId } = res.body as { taskId: string };
    await vi.waitFor(async () => expect((await row(taskId)).status).toBe("completed"), { timeout: 15_000 });
    expect(events).toContainEqual({ type: "task-completed", userId: user.id, taskId, status: "completed" });
  });

  it("adds the job in the task row's transaction: a rollback leaves neither", async () => {
    const user = await signedIn(["user"]);
    const schema = queueSchema(process.env.DATABASE_URL!);
    const jobs = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from ${sql.id(schema)}._private_jobs`.execute(db()))
          .rows[0]!.n,
      );
    const before = await jobs();
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await trx
            .insertInto("task")
            .values({
              id: "rolled-back",
              type: "report.generate",
              status: "pending",
              user_id: user.id,
              payload: null,
              result: null,
              created_at: new Date().toISOString(),
              updated_at: new Date().toISOString(),
              completed_at: null,
            })
            .execute();
          await queue.enqueue("rolled-back", trx);
          throw new Error("abort");
        }),
    ).rejects.toThrow("abort");
    expect(await jobs()).toBe(before);
    expect(await db().selectFrom("task").select("id").where("id", "=", "rolled-back").execute()).toEqual([]);
  });

  it("fails a task whose worker stopped beating, with a clear error and one event", async () => {
    const user = await signedIn(["user"]);
    const events: SystemEvent[] = [];
    systemBus().subscribe(SYSTEM_EVENT_CHANNEL, user.id, (e) => events.push(e));
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    await db()
      .insertInto("task")
      .values({
        id: "stalled-1",
        type: "report.generate",
        status: "processing",
        user_id: user.id,
        payload: null,
        result: null,
        created_at: old,
        updated_at: old,
        completed_at: null,
      })
      .execute();
    await queue.sweep();
    const task = await row("stalled-1");
    expect(task.status).toBe("failed");
    expect(JSON.parse(task.result!)).toEqual({ error: STALLED_ERROR });
    expect(events).toEqual([
      { type: "task-completed", userId: user.id, taskId: "stalled-1", status: "failed" },
    ]);
  });
});
