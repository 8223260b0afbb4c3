import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createUser, setupDatabase } from "../../test/helpers";
import { jsonText } from "../../test/json-text";
import { onPostgres } from "../../test/postgres-schema";
import { deliverThroughRoute } from "../../test/tasks";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../events/event-types";
import { defineTask, type TaskDefinition, TaskError } from "./definition.server";
import { DeliveryError } from "./delivery.server";
import { taskDefinition } from "./registry.server";
import { insertTask } from "./repository.server";
import { INTERRUPTED_ERROR, InProcessTaskRunner, type RunnerOptions, SHUTDOWN_ERROR } from "./runner.server";

beforeAll(setupDatabase);

const row = (id: string) =>
  db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** A task type the test opens and closes by hand, so no assertion depends on timing. */
function gate() {
  const started: string[] = [];
  const releases = new Map<string, (value: unknown) => void>();
  let onStart: () => void = () => {};
  let active = 0;
  let maxActive = 0;
  const definition = defineTask({
    type: "test.gate",
    payload: z.unknown(),
    run: (_p, { taskId, signal }) =>
      new Promise((resolve, reject) => {
        started.push(taskId);
        active++;
        maxActive = Math.max(maxActive, active);
        releases.set(taskId, (value) => {
          active--;
          resolve(value);
        });
        signal.addEventListener("abort", () => reject(signal.reason));
        onStart();
      }),
  });
  return {
    definition,
    started,
    maxActive: () => maxActive,
    release: (id: string, value: unknown = { done: id }) => releases.get(id)?.(value),
    /** Resolves once `n` tasks have started in total. */
    startedCount: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => started.length >= n && resolve();
        onStart = check;
        check();
      }),
  };
}

function runnerWith(extra: TaskDefinition[], options: RunnerOptions = {}) {
  const byType = new Map(extra.map((d) => [d.type, d]));
  return new InProcessTaskRunner({
    concurrency: 2,
    retryDelaysMs: [0, 0],
    deliver: deliverThroughRoute,
    definitions: (type) => byType.get(type) ?? taskDefinition(type),
    log: () => {},
    ...options,
  });
}

async function ownerWithEvents() {
  const owner = await createUser({ roles: ["user"] });
  const events: SystemEvent[] = [];
  systemBus().subscribe(SYSTEM_EVENT_CHANNEL, owner.id, (e) => events.push(e));
  return { owner, events };
}

describe("task runner", () => {
  it("moves a task pending -> processing -> completed through the signed webhook", async () => {
    const g = gate();
    const runner = runnerWith([g.definition]);
    const { owner, events } = await ownerWithEvents();
    const id = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    expect((await row(id)).status).toBe("pending");
    runner.dispatch(id);
    await g.startedCount(1);
    expect((await row(id)).status).toBe("processing");
    // Progress is published without waiting for the event log (runner.server.ts): it arrives soon.
    await vi.waitFor(() =>
      expect(events).toContainEqual(
        expect.objectContaining({ type: "task-progress", taskId: id, progress: 0 }),
      ),
    );
    g.release(id, { answer: 42 });
    await runner.idle();
    const done = await row(id);
    expect(done).toMatchObject({ status: "completed", result: jsonText({ answer: 42 }) });
    expect(done.completed_at).toBeTruthy();
    expect(events.filter((e) => e.type === "task-completed")).toEqual([
      { type: "task-completed", userId: owner.id, taskId: id, status: "completed" },
    ]);
  });

  it("runs report.generate to a small report, and fails it with result.error when asked", async () => {
    const runner = runnerWith([]);
    const { owner, events } = await ownerWithEvents();
    const ok = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    const bad = await insertTask({
      type: "report.generate",
      userId: owner.id,
      payload: { durationMs: 0, fail: true },
    });
    runner.dispatch(ok);
    runner.dispatch(bad);
    await runner.idle();
    const report = JSON.parse((await row(ok)).result!);
    expect((await row(ok)).status).toBe("completed");
    expect(report).toMatchObject({ title: "System report", users: expect.any(Number), roles: 5 });
    expect(report.tasks).toHaveProperty("completed");
    expect(await row(bad)).toMatchObject({ status: "failed" });
    expect(JSON.parse((await row(bad)).result!).error).toMatch(/simulated failure/);
    expect(events.filter((e) => e.type === "task-progress" && e.taskId === ok).length).toBeGreaterThan(1);
  });

  it("reports the system's users and tasks by status as counting the tables would", async () => {
    const runner = runnerWith([]);
    const { owner } = await ownerWithEvents();
    const ok = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    runner.dispatch(ok);
    await runner.idle();
    const report = JSON.parse((await row(ok)).result!);
    // From the maintained counters, equal to what counting the tables gives.
    const users = await db()
      .selectFrom("user")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const byStatus = await db()
      .selectFrom("task")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .where("id", "!=", ok)
      .groupBy("status")
      .execute();
    const expected = { pending: 0, processing: 0, completed: 0, failed: 0 } as Record<string, number>;
    for (const r of byStatus) expected[r.status] = Number(r.n);
    // The report is taken while its own task is still processing.
    expected.processing! += 1;
    expect(report.users).toBe(Number(users.n));
    expect(report.tasks).toEqual(expected);
  });

  it("fails a task whose work throws, without leaking the error text", async () => {
    const broken = defineTask({
      type: "test.broken",
      payload: z.unknown(),
      run: async () => {
        throw new Error("SQLITE_BUSY secret internals");
      },
    });
    const friendly = defineTask({
      type: "test.friendly",
      payload: z.unknown(),
      run: async () => {
        throw new TaskError("Nothing to export.");
      },
    });
    const runner = runnerWith([broken, friendly]);
    const { owner } = await ownerWithEvents();
    const a = await insertTask({ type: "test.broken", userId: owner.id, payload: null });
    const b = await insertTask({ type: "test.friendly", userId: owner.id, payload: null });
    runner.dispatch(a);
    runner.dispatch(b);
    await runner.idle();
    expect(JSON.parse((await row(a)).result!).error).not.toMatch(/SQLITE/);
    expect(JSON.parse((await row(b)).result!)).toEqual({ error: "Nothing to export." });
  });

  it("fails work that outlives its timeout", async () => {
    const g = gate();
    const runner = runnerWith([{ ...g.definition, timeoutMs: 5 }]);
    const { owner } = await ownerWithEvents();
    const id = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    runner.dispatch(id);
    await runner.idle();
    expect(await row(id)).toMatchObject({ status: "failed" });
    expect(JSON.parse((await row(id)).result!).error).toMatch(/Timed out/);
  });

  it("runs at most `concurrency` tasks at once; the rest wait as pending", async () => {
    const g = gate();
    const runner = runnerWith([g.definition], { concurrency: 2 });
    const { owner } = await ownerWithEvents();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await insertTask({ type: "test.gate", userId: owner.id, payload: null }));
    for (const id of ids) runner.dispatch(id);
    await g.startedCount(2);
    expect(runner.runningCount).toBe(2);
    expect(runner.queuedCount).toBe(3);
    const statuses = async () => Promise.all(ids.map(async (id) => (await row(id)).status));
    expect(await statuses()).toEqual(["processing", "processing", "pending", "pending", "pending"]);

    g.release(g.started[0]!);
    await g.startedCount(3);
    expect(runner.runningCount).toBeLessThanOrEqual(2);
    // Released in the order they started: tasks claimed at once may start in either order on a
    // connection pool (PostgreSQL), unlike SQLite's single connection.
    for (let k = 1; k < ids.length; k++) {
      await g.startedCount(k + 1);
      g.release(g.started[k]!);
    }
    await runner.idle();
    expect(await statuses()).toEqual(Array(5).fill("completed"));
    expect([...g.started].sort()).toEqual([...ids].sort());
    expect(g.maxActive()).toBe(2);
  });

  it("retries a failing webhook, then records the outcome directly (never lost)", async () => {
    let attempts = 0;
    const runner = runnerWith([], {
      deliver: async () => {
        attempts++;
        throw new TypeError("fetch failed: ECONNREFUSED");
      },
    });
    const { owner, events } = await ownerWithEvents();
    const id = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    runner.dispatch(id);
    await runner.idle();
    expect(attempts).toBe(3);
    expect((await row(id)).status).toBe("completed");
    expect(events.filter((e) => e.type === "task-completed")).toHaveLength(1);
  });

  it("does not retry an answer that cannot change (401), and records directly", async () => {
    let attempts = 0;
    const runner = runnerWith([], {
      deliver: async () => {
        attempts++;
        throw new DeliveryError(401);
      },
    });
    const { owner } = await ownerWithEvents();
    const id = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    runner.dispatch(id);
    await runner.idle();
    expect(attempts).toBe(1);
    expect((await row(id)).status).toBe("completed");
  });

  it("a delivery that landed but whose answer was lost is not applied twice", async () => {
    const runner = runnerWith([], {
      deliver: async (completion) => {
        await deliverThroughRoute(completion);
        throw new TypeError("socket hang up");
      },
    });
    const { owner, events } = await ownerWithEvents();
    const id = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    runner.dispatch(id);
    await runner.idle();
    expect(events.filter((e) => e.type === "task-completed")).toHaveLength(1);
  });

  it("at start-up runs interrupted re-runnable tasks again, fails the others clearly, runs `pending` ones", async () => {
    const g = gate();
    const { owner, events } = await ownerWithEvents();
    // report.generate only reads: safe to run again. The gate type does not say so: it is not.
    const rerun = await insertTask({ type: "report.generate", userId: owner.id, payload: { durationMs: 0 } });
    const interrupted = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    await db()
      .updateTable("task")
      .set({ status: "processing", attempt: 1 })
      .where("id", "in", [rerun, interrupted])
      .execute();
    const waiting = await insertTask({
      type: "report.generate",
      userId: owner.id,
      payload: { durationMs: 0 },
    });

    const runner = runnerWith([g.definition]);
    await runner.start();
    await runner.idle();
    await runner.stop();

    expect(await row(interrupted)).toMatchObject({ status: "failed" });
    expect(JSON.parse((await row(interrupted)).result!)).toEqual({ error: INTERRUPTED_ERROR });
    expect(await row(rerun)).toMatchObject({ status: "completed", attempt: 2 });
    expect((await row(waiting)).status).toBe("completed");
    const left = await db()
      .selectFrom("task")
      .select("id")
      .where("status", "in", ["pending", "processing"])
      .execute();
    expect(left).toEqual([]);
    const completed = events.filter((e) => e.type === "task-completed").map((e) => e.taskId);
    expect(completed.sort()).toEqual([interrupted, rerun, waiting].sort());
  });

  it("on stop hands a re-runnable task still running after the grace period back; its late end changes nothing", async () => {
    const g = gate();
    const rerunnable = { ...g.definition, rerunnable: true };
    const runner = runnerWith([rerunnable], { graceMs: 0 });
    const { owner, events } = await ownerWithEvents();
    const id = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    runner.dispatch(id);
    await g.startedCount(1);
    await runner.stop();
    expect(await row(id)).toMatchObject({ status: "pending", result: null, completed_at: null, attempt: 1 });
    expect(events.filter((e) => e.type === "task-completed")).toEqual([]);
    // Work that ignored its signal ends later: nothing is recorded for it.
    g.release(id, { late: true });
    await new Promise((r) => setTimeout(r, 50));
    expect((await row(id)).status).toBe("pending");

    // The next start (or, on PostgreSQL, another instance) runs it again, to completion.
    const next = runnerWith([rerunnable]);
    await next.start();
    await g.startedCount(2);
    g.release(id, { second: true });
    await next.idle();
    await next.stop();
    expect(await row(id)).toMatchObject({
      status: "completed",
      result: jsonText({ second: true }),
      attempt: 2,
    });
    expect(events.filter((e) => e.type === "task-completed")).toEqual([
      { type: "task-completed", userId: owner.id, taskId: id, status: "completed" },
    ]);
  });

  it("on stop takes no new work, and fails work still running after the grace period", async () => {
    const g = gate();
    const runner = runnerWith([g.definition], { concurrency: 1, graceMs: 0 });
    const { owner } = await ownerWithEvents();
    const running = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    const queued = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    runner.dispatch(running);
    runner.dispatch(queued);
    await g.startedCount(1);
    await runner.stop();
    expect(JSON.parse((await row(running)).result!)).toEqual({ error: SHUTDOWN_ERROR });
    // Left pending: the next start takes it up.
    expect((await row(queued)).status).toBe("pending");
    runner.dispatch(queued);
    expect(runner.queuedCount).toBe(0);
  });

  it.skipIf(!onPostgres)("hands back, unstarted, a task the server stopped while claiming it", async () => {
    const g = gate();
    const runner = runnerWith([g.definition], { graceMs: 0 });
    const { owner, events } = await ownerWithEvents();
    const id = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    // The claim waits for this row lock, so the stop comes while the task is being claimed.
    let unlock: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const lock = db()
      .transaction()
      .execute(async (trx) => {
        await trx.selectFrom("task").select("id").where("id", "=", id).forUpdate().execute();
        locked();
        await held;
      });
    await isLocked;
    runner.dispatch(id);
    const stopped = runner.stop();
    // The grace period (0) passes and the runner aborts the task before its claim returns.
    await new Promise((r) => setTimeout(r, 500));
    unlock();
    await lock;
    await stopped;
    expect(g.started).toEqual([]);
    // The gate type is not re-runnable, but nothing of it ran: it waits for the next runner.
    expect(await row(id)).toMatchObject({ status: "pending", attempt: 1 });
    expect(events.filter((e) => e.type === "task-completed")).toEqual([]);
  });

  it("lets running work finish within the grace period", async () => {
    const g = gate();
    const runner = runnerWith([g.definition], { graceMs: 60_000 });
    const { owner } = await ownerWithEvents();
    const id = await insertTask({ type: "test.gate", userId: owner.id, payload: null });
    runner.dispatch(id);
    await g.startedCount(1);
    const stopped = runner.stop();
    g.release(id, { fine: true });
    await stopped;
    expect(await row(id)).toMatchObject({ status: "completed", result: jsonText({ fine: true }) });
  });
});

describe("the database going away under a task", () => {
  const unreachable = () =>
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

  it("runs re-runnable work again once the database may be back, and it completes", async () => {
    let runs = 0;
    const flaky = defineTask({
      type: "test.db-flaky",
      payload: z.unknown(),
      rerunnable: true,
      run: async () => {
        runs++;
        if (runs === 1) throw unreachable();
        return { runs };
      },
    });
    const { owner } = await ownerWithEvents();
    const id = await insertTask({ type: flaky.type, userId: owner.id, payload: null });
    const runner = runnerWith([flaky as TaskDefinition]);
    await runner.runNow(id);
    const done = await row(id);
    expect(runs).toBe(2);
    expect(done.status).toBe("completed");
    expect(JSON.parse(done.result!)).toEqual({ runs: 2 });
  });

  it("fails work that is not safe to repeat, and any other error, without a second run", async () => {
    let runs = 0;
    const once = defineTask({
      type: "test.db-once",
      payload: z.unknown(),
      rerunnable: false,
      run: async () => {
        runs++;
        throw unreachable();
      },
    });
    let buggyRuns = 0;
    const buggy = defineTask({
      type: "test.db-bug",
      payload: z.unknown(),
      rerunnable: true,
      run: async () => {
        buggyRuns++;
        throw new Error("a bug, not an outage");
      },
    });
    const { owner } = await ownerWithEvents();
    const runner = runnerWith([once as TaskDefinition, buggy as TaskDefinition]);
    for (const type of [once.type, buggy.type]) {
      const id = await insertTask({ type, userId: owner.id, payload: null });
      await runner.runNow(id);
      expect((await row(id)).status).toBe("failed");
    }
    expect([runs, buggyRuns]).toEqual([1, 1]);
  });
});
