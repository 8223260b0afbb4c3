import { runMigrations } from "graphile-worker";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { postgresConfig } from "../../db/connection";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { jsonText } from "../../test/json-text";
import { onPostgres } from "../../test/postgres-schema";
import { deliverThroughRoute } from "../../test/tasks";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../events/event-types";
import { action } from "../routes/api.tasks";
import { defineTask } from "./definition.server";
import { createQueueRunner, QueueTaskRunner, queueSchema } from "./queue-runner.server";
import { taskDefinition } from "./registry.server";
import { insertTask } from "./repository.server";
import { InProcessTaskRunner, SHUTDOWN_ERROR, setTaskRunner } from "./runner.server";
import { recoverSilentTasks, STALLED_ERROR } from "./stalled.server";

const row = (id: string) =>
  db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const schema = () => queueSchema(process.env.DATABASE_URL!);
const jobsOf = async (taskId: string) =>
  (
    await sql<{ key: string | null; locked_by: string | null; locked_at: Date | null }>`select key, locked_by,
      locked_at from ${sql.id(schema())}._private_jobs where payload->>'taskId' = ${taskId}`.execute(db())
  ).rows;

async function post(cookie: string, body: unknown) {
  const req = request("/api/tasks", {
    method: "POST",
    cookie,
    body: JSON.stringify(body),
    headers: { "Content-Type": "application/json" },
  });
  return run(() => action(args(req)));
}

/** A processing task whose worker died long ago, its job still locked by that worker. */
async function abandoned(type: string, userId: string, deadWorker: string) {
  const id = await insertTask({ type, userId, payload: { durationMs: 0 } });
  const old = new Date(Date.now() - 10 * 60_000).toISOString();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("task")
        .set({ status: "processing", attempt: 1, updated_at: old })
        .where("id", "=", id)
        .execute();
      // Added and locked in one transaction, so no live worker can fetch it in between.
      await sql`select ${sql.id(schema())}.add_job('run_task', json_build_object('taskId', ${id}::text),
        max_attempts => 1, job_key => ${id}::text)`.execute(trx);
      await sql`update ${sql.id(schema())}._private_jobs set locked_by = ${deadWorker}, locked_at = now(),
        attempts = 1 where key = ${id}`.execute(trx);
    });
  return id;
}

describe.skipIf(!onPostgres)("graphile-worker queue (PostgreSQL)", () => {
  let queue: QueueTaskRunner;
  const logged: string[] = [];
  const fatal: unknown[] = [];
  beforeAll(async () => {
    await setupDatabase();
    queue = createQueueRunner(new InProcessTaskRunner({ deliver: deliverThroughRoute }), async () => {}, {
      restartDelaysMs: [100, 100, 100, 100, 100],
      log: (message) => logged.push(message),
      onFatal: (error) => fatal.push(error),
    });
    setTaskRunner(queue);
    await queue.start();
  });
  afterAll(() => queue.stop());

  it("runs a task posted to /api/tasks on the worker and completes it through the webhook", async () => {
    const user = await signedIn(["user"]);
    const events: SystemEvent[] = [];
    systemBus().subscribe(SYSTEM_EVENT_CHANNEL, user.id, (e) => events.push(e));
    const res = await post(user.cookie, { type: "report.generate", payload: { durationMs: 0 } });
    expect(res.status).toBe(202);
    const { taskId } = res.body as { taskId: string };
    await vi.waitFor(async () => expect((await row(taskId)).status).toBe("completed"), { timeout: 15_000 });
    // The event is published after the row's commit, so under load it may trail the row by a moment.
    await vi.waitFor(
      () =>
        expect(events).toContainEqual({
          type: "task-completed",
          userId: user.id,
          taskId,
          status: "completed",
        }),
      { timeout: 5_000 },
    );
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

  it("fails a task whose worker stopped beating when it is not safe to re-run, with a clear error and one event", async () => {
    const user = await signedIn(["user"]);
    const events: SystemEvent[] = [];
    systemBus().subscribe(SYSTEM_EVENT_CHANNEL, user.id, (e) => events.push(e));
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    await db()
      .insertInto("task")
      .values({
        id: "stalled-1",
        // Sends mail: not re-runnable.
        type: "broadcast.email",
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

  it("takes up a dead worker's tasks: re-runs a re-runnable one, fails the other, frees their jobs", async () => {
    const owner = await createUser({ roles: ["user"] });
    const events: SystemEvent[] = [];
    systemBus().subscribe(SYSTEM_EVENT_CHANNEL, owner.id, (e) => events.push(e));
    const dead = "worker-dead-0001";
    const report = await abandoned("report.generate", owner.id, dead);
    const mail = await abandoned("broadcast.email", owner.id, dead);
    expect(taskDefinition("report.generate")?.rerunnable).toBe(true);
    expect(taskDefinition("broadcast.email")?.rerunnable).toBe(false);

    await queue.sweep();
    expect(await row(mail)).toMatchObject({ status: "failed", result: jsonText({ error: STALLED_ERROR }) });
    // Run again by a live worker (this instance's), to completion: its second attempt.
    await vi.waitFor(async () => expect((await row(report)).status).toBe("completed"), { timeout: 15_000 });
    expect((await row(report)).attempt).toBe(2);
    const locked = await sql<{ n: number }>`select count(*)::int as n from ${sql.id(schema())}._private_jobs
      where locked_by = ${dead}`.execute(db());
    expect(locked.rows[0]!.n).toBe(0);
    await vi.waitFor(async () => expect(await jobsOf(report)).toEqual([]));
    expect(await jobsOf(mail)).toEqual([]);
    expect(events.filter((e) => e.type === "task-completed").map((e) => [e.taskId, e.status])).toEqual(
      expect.arrayContaining([
        [mail, "failed"],
        [report, "completed"],
      ]),
    );
  });

  it("frees a job a dead worker fetched but never claimed, and runs its task", async () => {
    const owner = await createUser({ roles: ["user"] });
    const dead = "worker-dead-0002";
    const id = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    await db()
      .transaction()
      .execute(async (trx) => {
        await sql`select ${sql.id(schema())}.add_job('run_task', json_build_object('taskId', ${id}::text),
          max_attempts => 1, job_key => ${id}::text)`.execute(trx);
        await sql`update ${sql.id(schema())}._private_jobs set locked_by = ${dead},
          locked_at = now() - interval '10 minutes', attempts = 1 where key = ${id}`.execute(trx);
      });
    await queue.sweep();
    await vi.waitFor(async () => expect((await row(id)).status).toBe("completed"), { timeout: 15_000 });
    const locked = await sql<{ n: number }>`select count(*)::int as n from ${sql.id(schema())}._private_jobs
      where locked_by = ${dead}`.execute(db());
    expect(locked.rows[0]!.n).toBe(0);
  });

  it("keeps running when a queue in another schema of the database migrates (a breaking notice)", async () => {
    const other = `${schema()}_other`;
    const { connectionString, options } = postgresConfig(process.env.DATABASE_URL!);
    const pool = new pg.Pool({ connectionString, options, max: 2 });
    const exitCode = process.exitCode;
    try {
      // A fresh queue's migrations announce breaking revisions to the whole database.
      await runMigrations({ pgPool: pool, schema: other });
      await pool.query(`select pg_notify('worker:migrate', '{"migrationNumber":999,"breaking":true}')`);
      await new Promise((r) => setTimeout(r, 500));
      expect(process.exitCode).not.toBe(57);
      expect(logged.filter((m) => m.includes("stopped by itself"))).toEqual([]);
      expect(queue.healthy()).toBe(true);
      const user = await signedIn(["user"]);
      const res = await post(user.cookie, { type: "report.generate", payload: { durationMs: 0 } });
      const { taskId } = res.body as { taskId: string };
      await vi.waitFor(async () => expect((await row(taskId)).status).toBe("completed"), { timeout: 15_000 });
    } finally {
      process.exitCode = exitCode;
      await pool.query(`drop schema if exists "${other}" cascade`);
      await pool.end();
    }
  });

  it("restarts a runner that stopped behind its back, unhealthy until it runs again", async () => {
    const first = queue.runner!;
    await first.stop();
    expect(queue.healthy()).toBe(false);
    await vi.waitFor(() => expect(queue.healthy()).toBe(true), { timeout: 10_000 });
    expect(queue.runner).not.toBe(first);
    expect(logged.some((m) => m.includes("stopped by itself"))).toBe(true);
    const user = await signedIn(["user"]);
    const res = await post(user.cookie, { type: "report.generate", payload: { durationMs: 0 } });
    const { taskId } = res.body as { taskId: string };
    await vi.waitFor(async () => expect((await row(taskId)).status).toBe("completed"), { timeout: 15_000 });
    expect(fatal).toEqual([]);
  });
});

/** A task type the test ends by hand; `rerunnable` as asked. */
function gates() {
  const started: string[] = [];
  const releases = new Map<string, (value: unknown) => void>();
  const make = (type: string, rerunnable: boolean) =>
    defineTask({
      type,
      rerunnable,
      payload: z.unknown(),
      run: (_p, { taskId }) =>
        new Promise((resolve) => {
          started.push(taskId);
          // Ignores its signal: the runner must still hand it back or fail it.
          releases.set(taskId, resolve);
        }),
    });
  const byType = new Map([make("test.rerun", true), make("test.once", false)].map((d) => [d.type, d]));
  return {
    definitions: (type: string) => byType.get(type) ?? taskDefinition(type),
    started,
    release: (id: string, value: unknown) => releases.get(id)?.(value),
  };
}

describe.skipIf(!onPostgres)("graphile-worker queue: stopping (PostgreSQL)", () => {
  beforeAll(setupDatabase);

  async function enqueued(type: string, userId: string, runner: QueueTaskRunner) {
    return db()
      .transaction()
      .execute(async (trx) => {
        const id = await insertTask({ type, userId, payload: null }, trx);
        await runner.enqueue(id, trx);
        return id;
      });
  }

  it("beats for running tasks, then hands a re-runnable one back at stop and fails the other; another instance runs it", async () => {
    const g = gates();
    const owner = await createUser({ roles: ["user"] });
    const executor = () =>
      new InProcessTaskRunner({ deliver: deliverThroughRoute, definitions: g.definitions, graceMs: 0 });
    const first = createQueueRunner(executor(), async () => {}, { heartbeatMs: 100 });
    await first.start();
    const rerun = await enqueued("test.rerun", owner.id, first);
    const once = await enqueued("test.once", owner.id, first);
    await vi.waitFor(() => expect(g.started).toHaveLength(2), { timeout: 15_000 });

    // Longer than 4 beats: its own beats keep it from looking silent to any other instance.
    await new Promise((r) => setTimeout(r, 700));
    const swept = await recoverSilentTasks(400, {
      runningHere: () => false,
      rerunnable: () => true,
      requeue: async () => {},
      dropJob: async () => {},
    });
    expect(swept).toEqual({ rerun: [], failed: [] });

    await first.stop();
    expect(await row(rerun)).toMatchObject({ status: "pending", attempt: 1, result: null });
    expect(await row(once)).toMatchObject({ status: "failed", result: jsonText({ error: SHUTDOWN_ERROR }) });
    // A new job, free for any worker; the stopped one's is gone.
    expect(await jobsOf(rerun)).toEqual([{ key: rerun, locked_by: null, locked_at: null }]);
    expect(await jobsOf(once)).toEqual([]);
    g.release(rerun, { late: true });

    const second = createQueueRunner(executor());
    try {
      await second.start();
      await vi.waitFor(() => expect(g.started).toHaveLength(3), { timeout: 15_000 });
      g.release(rerun, { second: true });
      await vi.waitFor(async () => expect((await row(rerun)).status).toBe("completed"), { timeout: 15_000 });
      expect(await row(rerun)).toMatchObject({ attempt: 2, result: jsonText({ second: true }) });
    } finally {
      await second.stop();
    }
  });

  it("keeps beating for a task finishing in its grace period, so no other instance takes it", async () => {
    const g = gates();
    const owner = await createUser({ roles: ["user"] });
    const executor = new InProcessTaskRunner({
      deliver: deliverThroughRoute,
      definitions: g.definitions,
      graceMs: 60_000,
    });
    const runner = createQueueRunner(executor, async () => {}, { heartbeatMs: 100 });
    await runner.start();
    const id = await enqueued("test.once", owner.id, runner);
    await vi.waitFor(() => expect(g.started).toEqual([id]), { timeout: 15_000 });
    const stopped = runner.stop();
    // Longer than 4 beats into the grace period: another instance's sweep finds it alive.
    await new Promise((r) => setTimeout(r, 700));
    const swept = await recoverSilentTasks(400, {
      runningHere: () => false,
      rerunnable: () => false,
      requeue: async () => {},
      dropJob: async () => {},
    });
    expect(swept).toEqual({ rerun: [], failed: [] });
    g.release(id, { finished: "in its grace period" });
    await stopped;
    expect(await row(id)).toMatchObject({
      status: "completed",
      result: jsonText({ finished: "in its grace period" }),
    });
  });

  it("hands back a job fetched as it began to stop: the task keeps a job another instance fetches", async () => {
    const owner = await createUser({ roles: ["user"] });
    const executor = new InProcessTaskRunner({ deliver: deliverThroughRoute });
    const runner = createQueueRunner(executor);
    const id = await enqueued("report.generate", owner.id, runner);
    // As graphile-worker does when it fetches: the job is locked to this worker.
    await sql`update ${sql.id(schema())}._private_jobs set locked_by = 'stopping-worker', locked_at = now(),
      attempts = 1 where key = ${id}`.execute(db());
    await executor.stop();
    await runner.runJob(id);
    expect((await row(id)).status).toBe("pending");
    expect(await jobsOf(id)).toContainEqual({ key: id, locked_by: null, locked_at: null });
    await runner.stop();
  });

  it("beats for its running task while requests hold every connection of the request pool", async () => {
    const g = gates();
    const owner = await createUser({ roles: ["user"] });
    const executor = new InProcessTaskRunner({ deliver: deliverThroughRoute, definitions: g.definitions });
    const runner = createQueueRunner(executor, async () => {}, { heartbeatMs: 100 });
    await runner.start();
    const running = await enqueued("test.once", owner.id, runner);
    await vi.waitFor(() => expect(g.started).toEqual([running]), { timeout: 15_000 });
    // Read beside the request pool, which the test is about to fill.
    const { connectionString, options } = postgresConfig(process.env.DATABASE_URL!);
    const reader = new pg.Client({ connectionString, options });
    await reader.connect();
    const beat = async () =>
      String((await reader.query("select updated_at from task where id = $1", [running])).rows[0].updated_at);
    // Every connection of the request pool held by a transaction that waits (a reconnect storm).
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const holding = Array.from({ length: Number(process.env.DATABASE_POOL_SIZE ?? 10) }, () =>
      db()
        .transaction()
        .execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await held;
        }),
    );
    try {
      await new Promise((r) => setTimeout(r, 300)); // every transaction has its connection
      const before = await beat();
      // Ten beats' time: through the request pool, each touch waited 2 s for a connection, then failed.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await beat()).not.toBe(before);
    } finally {
      release();
      await Promise.all(holding);
      await reader.end();
      g.release(running, { done: true });
      await vi.waitFor(async () => expect((await row(running)).status).toBe("completed"), {
        timeout: 10_000,
      });
      await runner.stop();
    }
  });

  it("sweeps only after beats that reached the database: at start, as after an outage, others' beats may not have landed yet", async () => {
    const owner = await createUser({ roles: ["user"] });
    const silent = await abandoned("broadcast.email", owner.id, "worker-dead-0002");
    const runner = createQueueRunner(
      new InProcessTaskRunner({ deliver: deliverThroughRoute }),
      async () => {},
      {
        heartbeatMs: 100,
      },
    );
    await runner.start();
    // Two beats in: no sweep yet, however silent the task looks (its worker may just be catching up).
    await new Promise((r) => setTimeout(r, 150));
    expect((await row(silent)).status).toBe("processing");
    // Three beats that reached the database: the sweep takes it up.
    await vi.waitFor(async () => expect((await row(silent)).status).toBe("failed"), { timeout: 10_000 });
    await runner.stop();
  });

  it("takes no new job once the instance drains, while the running task goes on to finish", async () => {
    const g = gates();
    const owner = await createUser({ roles: ["user"] });
    const executor = new InProcessTaskRunner({ deliver: deliverThroughRoute, definitions: g.definitions });
    const runner = createQueueRunner(executor);
    await runner.start();
    const running = await enqueued("test.once", owner.id, runner);
    await vi.waitFor(() => expect(g.started).toEqual([running]), { timeout: 15_000 });
    runner.stopTaking();
    const later = await enqueued("test.once", owner.id, runner);
    // Well past graphile-worker's LISTEN nudge and its 2 s poll: nobody fetched it here.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(g.started).toEqual([running]);
    expect(await jobsOf(later)).toEqual([{ key: later, locked_by: null, locked_at: null }]);
    g.release(running, { done: true });
    await vi.waitFor(async () => expect((await row(running)).status).toBe("completed"), { timeout: 10_000 });
    await runner.stop();
    expect((await row(later)).status).toBe("pending");
  });

  it("hands back a job fetched while the instance began to drain (graphile-worker's stop does not cancel a fetch under way)", async () => {
    const g = gates();
    const owner = await createUser({ roles: ["user"] });
    const executor = new InProcessTaskRunner({ deliver: deliverThroughRoute, definitions: g.definitions });
    const runner = createQueueRunner(executor);
    await runner.start();
    runner.stopTaking();
    const later = await enqueued("test.once", owner.id, runner);
    // What the worker does with a job its in-flight fetch returned after stopTaking.
    await runner.runJob(later);
    expect(g.started).toEqual([]);
    expect((await row(later)).status).toBe("pending");
    expect((await jobsOf(later)).length).toBeGreaterThan(0);
    await runner.stop();
  });

  it("runs every step of stop even when the runner's own stop fails", async () => {
    const { connectionString, options } = postgresConfig(process.env.DATABASE_URL!);
    const pool = new pg.Pool({ connectionString, options, max: 4 });
    const closePool = vi.fn(() => pool.end());
    const failures: unknown[] = [];
    const runner = new QueueTaskRunner(new InProcessTaskRunner({ deliver: deliverThroughRoute }), {
      pool: () => pool,
      closePool,
      schema: schema(),
      work: true,
      concurrency: 1,
      heartbeatMs: 60_000,
      dailyCleanup: async () => {},
      log: (_m, e) => failures.push(e),
    });
    await runner.start();
    const graphile = runner.runner!;
    const realStop = graphile.stop.bind(graphile);
    graphile.stop = async () => {
      await realStop();
      throw new Error("graceful shutdown failed");
    };
    await expect(runner.stop()).resolves.toBeUndefined();
    expect(closePool).toHaveBeenCalledOnce();
    expect(failures).toContainEqual(new Error("graceful shutdown failed"));
  });
});
