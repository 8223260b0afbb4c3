import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { badPlans, captureQueries, plansOf } from "../../test/support/plans";
import { deliverThroughRoute, RecordingRunner } from "../../test/tasks";
import { db, now } from "../db.server";
import { resetEnvCache } from "../env.server";
import { action } from "../routes/api.tasks";
import { openTaskCount } from "./create-task.server";
import { defineTask } from "./definition.server";
import { InProcessTaskRunner, setTaskRunner } from "./runner.server";

// One account must not fill the queue so that everyone else's work waits behind it.
const runner = new RecordingRunner();
beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(runner);
});
afterEach(() => {
  delete process.env.TASK_MAX_OPEN_PER_USER;
  resetEnvCache();
});

const post = (cookie: string, type = "report.generate") =>
  run(() =>
    action(
      args(
        request("/api/tasks", {
          method: "POST",
          cookie,
          body: JSON.stringify({
            type,
            payload: type === "report.generate" ? { durationMs: 60_000 } : undefined,
          }),
          headers: { "Content-Type": "application/json" },
        }),
      ),
    ),
  );
const openCount = async (userId: string) =>
  Number(
    (
      await db()
        .selectFrom("task")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("user_id", "=", userId)
        .where("status", "in", ["pending", "processing"])
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("open tasks per user", () => {
  it("refuses the task past the cap with 429 too_many_tasks and Retry-After, writing nothing", async () => {
    const user = await signedIn(["user"]);
    for (let i = 0; i < 3; i++) expect((await post(user.cookie)).status).toBe(202);
    const refused = await post(user.cookie);
    expect(refused).toMatchObject({ status: 429, body: { error: "too_many_tasks", limit: 3 } });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await openCount(user.id)).toBe(3);
    const audit = await db()
      .selectFrom("audit_log")
      .select("id")
      .where("actor_id", "=", user.id)
      .where("action", "=", "task.create")
      .execute();
    expect(audit).toHaveLength(3);
  });

  it("counts processing tasks too, and a finished task frees its slot", async () => {
    process.env.TASK_MAX_OPEN_PER_USER = "2";
    resetEnvCache();
    const user = await signedIn(["user"]);
    const first = (await post(user.cookie)).body as { taskId: string };
    expect((await post(user.cookie)).status).toBe(202);
    await db().updateTable("task").set({ status: "processing" }).where("id", "=", first.taskId).execute();
    expect((await post(user.cookie)).status).toBe(429);

    const ts = now();
    await db()
      .updateTable("task")
      .set({ status: "completed", completed_at: ts, updated_at: ts })
      .where("id", "=", first.taskId)
      .execute();
    expect((await post(user.cookie)).status).toBe(202);
    expect((await post(user.cookie)).status).toBe(429);
    expect(await openCount(user.id)).toBe(2);
  });

  it("leaves other users unaffected", async () => {
    process.env.TASK_MAX_OPEN_PER_USER = "1";
    resetEnvCache();
    const busy = await signedIn(["user"]);
    const admin = await signedIn(["admin"]);
    expect((await post(busy.cookie)).status).toBe(202);
    expect((await post(busy.cookie)).status).toBe(429);
    expect((await post(admin.cookie)).status).toBe(202);
  });

  it("cannot be exceeded by parallel requests", async () => {
    const user = await signedIn(["user"]);
    const results = await Promise.all(Array.from({ length: 12 }, () => post(user.cookie)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect(await openCount(user.id)).toBe(3);
  });

  it("with the default cap below the runner's concurrency, another user's export starts while one user's reports run", async () => {
    // Work that ends only when the test says so: no assertion waits on a clock.
    const started: string[] = [];
    let onStart = () => {};
    const hold = defineTask({
      type: "held",
      payload: z.unknown(),
      run: (_p, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason));
          onStart();
        }),
    });
    const startedCount = (n: number) =>
      new Promise<void>((resolve) => {
        onStart = () => started.push("x") >= n && resolve();
      });
    const real = new InProcessTaskRunner({
      concurrency: 4,
      deliver: deliverThroughRoute,
      definitions: () => hold,
      log: () => {},
      graceMs: 0,
      retryDelaysMs: [0],
    });
    setTaskRunner(real);
    try {
      const busy = await signedIn(["user"]);
      const admin = await signedIn(["admin"]);
      const threeRunning = startedCount(3);
      for (let i = 0; i < 3; i++) expect((await post(busy.cookie)).status).toBe(202);
      await threeRunning;
      expect((await post(busy.cookie)).status).toBe(429);

      const exportRunning = startedCount(4);
      const exported = (await post(admin.cookie, "users.export")).body as { taskId: string };
      await exportRunning;
      const row = await db()
        .selectFrom("task")
        .select("status")
        .where("id", "=", exported.taskId)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe("processing");
    } finally {
      await real.stop();
      setTaskRunner(runner);
    }
  });

  it("counts a user's open tasks from their counters: finished, failed and deleted tasks take no slot", async () => {
    process.env.TASK_MAX_OPEN_PER_USER = "2";
    resetEnvCache();
    const user = await signedIn(["user"]);
    const ts = now();
    const task = (status: "pending" | "processing" | "completed" | "failed") => ({
      id: randomUUID(),
      type: "report.generate",
      status,
      user_id: user.id,
      payload: null,
      result: null,
      created_at: ts,
      updated_at: ts,
      completed_at: null,
    });
    // Many finished tasks, one pending: one slot is left.
    const rows = [
      ...Array.from({ length: 30 }, (_, i) => task(i % 3 ? "completed" : "failed")),
      task("pending"),
    ];
    await db().insertInto("task").values(rows).execute();
    expect(await openTaskCount(db(), user.id)).toBe(1);
    expect((await post(user.cookie)).status).toBe(202);
    expect((await post(user.cookie)).status).toBe(429);
    expect(await openCount(user.id)).toBe(2);

    // Deleting the pending one frees its slot.
    await db().deleteFrom("task").where("id", "=", rows.at(-1)!.id).execute();
    expect(await openTaskCount(db(), user.id)).toBe(1);
    expect((await post(user.cookie)).status).toBe(202);
    expect(await openTaskCount(db(), user.id)).toBe(await openCount(user.id));
  });

  it("reads counters by primary key, never the user's task rows, when it takes or refuses a task", async () => {
    process.env.TASK_MAX_OPEN_PER_USER = "1";
    resetEnvCache();
    const user = await signedIn(["user"]);
    for (const expected of [202, 429]) {
      const { result, plans } = await plansOf(db(), () => post(user.cookie));
      expect(result.status).toBe(expected);
      expect(badPlans(plans)).toEqual([]);
      const reads = plans.filter((p) => /^select/i.test(p.sql) && /from "task"/.test(p.sql));
      expect(reads).toEqual([]);
    }
    const { queries } = await captureQueries(db(), () => openTaskCount(db(), user.id));
    expect(queries.map((q) => q.sql).join("\n")).toMatch(/from "stat_count"/);
  });
});
