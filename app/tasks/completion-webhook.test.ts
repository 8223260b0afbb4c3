import { type Kysely, sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { dialectOf } from "../../db/connection";
import { createUser, setupDatabase } from "../../test/helpers";
import { jsonText } from "../../test/json-text";
import { postWebhook } from "../../test/tasks";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../events/event-types";
import { claimTask, insertTask, releaseTask } from "./repository.server";

beforeAll(setupDatabase);

async function pendingTask() {
  const owner = await createUser({ roles: ["user"] });
  const taskId = await insertTask({ type: "report.generate", userId: owner.id, payload: {} });
  const events: SystemEvent[] = [];
  const unsubscribe = systemBus().subscribe(SYSTEM_EVENT_CHANNEL, owner.id, (e) => events.push(e));
  return { owner, taskId, events, unsubscribe };
}
const row = (id: string) =>
  db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("POST /api/webhooks/tasks", () => {
  it("applies a signed completion: status, result, completedAt, one event, 200 {ok:true}", async () => {
    const { owner, taskId, events } = await pendingTask();
    const res = await postWebhook({ taskId, status: "completed", result: { rows: 3 } });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    const task = await row(taskId);
    expect(task).toMatchObject({ status: "completed", result: jsonText({ rows: 3 }) });
    expect(task.completed_at).toBeTruthy();
    expect(task.updated_at).toBe(task.completed_at);
    expect(events).toEqual([{ type: "task-completed", userId: owner.id, taskId, status: "completed" }]);
  });

  it("logs the owner's event in the completion's own transaction: no completed task without it", async () => {
    const { owner, taskId, events } = await pendingTask();
    const logged = () =>
      db()
        .selectFrom("event_log")
        .select("id")
        .where("user_id", "=", owner.id)
        .where("type", "=", "task-completed")
        .execute();
    // The log refuses the write (as a pool closed under a cut request did): the completion rolls
    // back whole, its delivery id unspent, instead of leaving a completed task nobody hears of.
    const postgres = dialectOf(db() as Kysely<unknown>) === "postgres";
    if (postgres) {
      await sql`create function no_events() returns trigger language plpgsql as $$ begin raise exception 'log down'; end $$`.execute(
        db(),
      );
      await sql`create trigger no_events before insert on event_log for each row execute function no_events()`.execute(
        db(),
      );
    } else
      await sql`create trigger no_events before insert on event_log begin select raise(abort, 'log down'); end`.execute(
        db(),
      );
    try {
      const refused = await postWebhook({ taskId, status: "completed", result: { rows: 1 } }).catch(
        (error: Error) => ({ status: 500, body: error.message }),
      );
      expect(refused.status).toBe(500);
      expect(await row(taskId)).toMatchObject({ status: "pending", completed_at: null });
      expect(await logged()).toEqual([]);
      expect(events).toEqual([]);
    } finally {
      if (postgres) {
        await sql`drop trigger no_events on event_log`.execute(db());
        await sql`drop function no_events()`.execute(db());
      } else await sql`drop trigger no_events`.execute(db());
    }
    // The runner delivers again: applied now, with its event logged and given out.
    const again = await postWebhook({ taskId, status: "completed", result: { rows: 1 } });
    expect(again.status).toBe(200);
    expect(await row(taskId)).toMatchObject({ status: "completed" });
    expect(await logged()).toHaveLength(1);
    expect(events).toEqual([{ type: "task-completed", userId: owner.id, taskId, status: "completed" }]);
  });

  it("records a failure with its result.error", async () => {
    const { taskId, events } = await pendingTask();
    const res = await postWebhook({ taskId, status: "failed", result: { error: "boom" } });
    expect(res.status).toBe(200);
    expect(await row(taskId)).toMatchObject({ status: "failed", result: jsonText({ error: "boom" }) });
    expect(events).toMatchObject([{ status: "failed" }]);
  });

  it("answers a replayed webhook-id 200 without a second update or event", async () => {
    const { taskId, events } = await pendingTask();
    await postWebhook({ taskId, status: "completed", result: { n: 1 } });
    const first = await row(taskId);
    const again = await postWebhook({ taskId, status: "failed", result: { n: 2 } });
    expect(again).toMatchObject({ status: 200, body: { ok: true } });
    expect(await row(taskId)).toEqual(first);
    expect(events).toHaveLength(1);
  });

  it("ignores the answer of a run that was handed on, and applies the current run's", async () => {
    const { owner, taskId, events } = await pendingTask();
    expect(await claimTask(taskId)).toBe(1);
    // The first run is given up (its worker went silent) and the task runs again.
    expect(await releaseTask(taskId, 1)).toBe(true);
    expect(await claimTask(taskId)).toBe(2);
    const late = await postWebhook({ taskId, status: "failed", result: { error: "late" }, attempt: 1 });
    expect(late).toMatchObject({ status: 200, body: { ok: true } });
    expect(await row(taskId)).toMatchObject({ status: "processing", result: null, attempt: 2 });
    expect(events).toEqual([]);
    // The late answer did not spend the task's delivery id: the current run's still applies.
    const current = await postWebhook({ taskId, status: "completed", result: { n: 2 }, attempt: 2 });
    expect(current.status).toBe(200);
    expect(await row(taskId)).toMatchObject({ status: "completed", result: jsonText({ n: 2 }) });
    expect(events).toEqual([{ type: "task-completed", userId: owner.id, taskId, status: "completed" }]);
  });

  it("ignores a run's answer once its task was handed back and is pending again", async () => {
    const { taskId, events } = await pendingTask();
    expect(await claimTask(taskId)).toBe(1);
    expect(await releaseTask(taskId, 1)).toBe(true);
    await postWebhook({ taskId, status: "completed", result: { n: 1 }, attempt: 1 });
    expect((await row(taskId)).status).toBe("pending");
    expect(events).toEqual([]);
  });

  it.each([
    ["missing signature headers", { unsigned: true }],
    [
      "a forged signature",
      { headers: { "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" } },
    ],
    ["a signature of another id", { headers: { "webhook-id": "someone-else" } }],
    // Offsets are computed when the case runs, not when the table is built: on a loaded machine
    // seconds pass between the two, and "301 s ahead" would drift inside the window.
    ["a timestamp 301 s old", { atOffsetMs: -301_000 }],
    ["a timestamp 301 s ahead", { atOffsetMs: 301_000 }],
    ["a non-numeric timestamp", { headers: { "webhook-timestamp": "yesterday" } }],
  ])(
    "answers 401 for %s and changes nothing",
    async (_name, { atOffsetMs, ...opts }: { atOffsetMs?: number } & Parameters<typeof postWebhook>[1]) => {
      const { taskId, events } = await pendingTask();
      const at = atOffsetMs === undefined ? undefined : new Date(Date.now() + atOffsetMs);
      const res = await postWebhook({ taskId, status: "completed", result: {} }, { ...opts, at });
      expect(res).toMatchObject({ status: 401, body: { error: "unauthorized" } });
      expect((await row(taskId)).status).toBe("pending");
      expect(events).toEqual([]);
    },
  );

  it("answers 401 for a tampered body (signed over different bytes)", async () => {
    const { taskId } = await pendingTask();
    const { signWebhook } = await import("./webhook-signature.server");
    const signed = signWebhook(taskId, JSON.stringify({ taskId, status: "failed", result: {} }));
    const res = await postWebhook(
      { taskId, status: "completed", result: {} },
      { unsigned: true, headers: signed },
    );
    expect(res.status).toBe(401);
    expect((await row(taskId)).status).toBe("pending");
  });

  it("answers 401 for a signature made with another secret", async () => {
    const { taskId } = await pendingTask();
    const { Webhook } = await import("standardwebhooks");
    const body = JSON.stringify({ taskId, status: "completed", result: {} });
    const other = new Webhook(`whsec_${Buffer.from("another secret entirely!").toString("base64")}`);
    const at = new Date();
    const res = await postWebhook(body, {
      unsigned: true,
      headers: {
        "webhook-id": taskId,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": other.sign(taskId, at, body),
      },
    });
    expect(res.status).toBe(401);
  });

  it.each([
    [
      "a status other than completed/failed",
      (taskId: string) => ({ taskId, status: "processing", result: {} }),
    ],
    ["no status", (taskId: string) => ({ taskId, result: {} })],
    ["no taskId", () => ({ status: "completed", result: {} })],
    ["malformed JSON", () => "{oops"],
  ])("answers 400 for %s (signed) and changes nothing", async (_name, make) => {
    const { taskId, events } = await pendingTask();
    const res = await postWebhook(make(taskId), { id: taskId });
    expect(res).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect((await row(taskId)).status).toBe("pending");
    expect(events).toEqual([]);
  });

  it("answers 404 for an unknown task, without spending its webhook-id", async () => {
    const taskId = "6c0f3c3e-0000-4000-8000-000000000000";
    const res = await postWebhook({ taskId, status: "completed" });
    expect(res).toMatchObject({ status: 404, body: { error: "not_found" } });
    const owner = await createUser({ roles: ["user"] });
    const ts = new Date().toISOString();
    await db()
      .insertInto("task")
      .values({
        id: taskId,
        type: "report.generate",
        status: "processing",
        user_id: owner.id,
        payload: null,
        result: null,
        created_at: ts,
        updated_at: ts,
        completed_at: null,
      })
      .execute();
    expect((await postWebhook({ taskId, status: "completed" })).status).toBe(200);
    expect((await row(taskId)).status).toBe("completed");
  });

  // Signed bodies are still input: found by the fuzz test (test/fuzz.test.ts), these were 500s.
  it("answers 404 for a taskId that is no task id", async () => {
    expect(await postWebhook({ taskId: "../x", status: "completed" }, { id: "../x" })).toMatchObject({
      status: 404,
    });
  });

  it("answers 400 for a taskId with NUL (no webhook-id header can carry it to match)", async () => {
    expect(await postWebhook({ taskId: "a\u0000b", status: "completed" }, { id: "msg_odd" })).toMatchObject({
      status: 400,
    });
  });

  it.each([
    ["a result nested deeper than anything can walk", `${"[".repeat(20_000)}${"]".repeat(20_000)}`],
    ["a result with NUL in it", JSON.stringify({ text: "a\u0000b" })],
  ])("answers 400 for %s and changes nothing", async (_name, result) => {
    const { taskId, events } = await pendingTask();
    const raw = `{"taskId":${JSON.stringify(taskId)},"status":"completed","result":${result}}`;
    const res = await postWebhook(raw, { id: taskId });
    expect(res).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect((await row(taskId)).status).toBe("pending");
    expect(events).toEqual([]);
  });

  it("refuses a signed delivery whose webhook-id names another task: 400, neither task touched", async () => {
    const target = await pendingTask();
    const other = await pendingTask();
    const before = [await row(target.taskId), await row(other.taskId)];
    // Signed correctly, but for the other task's id: it would spend that task's replay slot.
    const res = await postWebhook({ taskId: target.taskId, status: "failed" }, { id: other.taskId });
    expect(res).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect([await row(target.taskId), await row(other.taskId)]).toEqual(before);
    expect(target.events).toEqual([]);
    // The other task's own completion still applies.
    expect((await postWebhook({ taskId: other.taskId, status: "completed" })).status).toBe(200);
    expect((await row(other.taskId)).status).toBe("completed");
  });
});
