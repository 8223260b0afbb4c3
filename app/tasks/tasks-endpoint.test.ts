import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { RecordingRunner } from "../../test/tasks";
import { answerProblem } from "../api-docs/check-answer";
import { db } from "../db.server";
import { action, loader as list } from "../routes/api.tasks";
import { loader as getOne } from "../routes/api.tasks.$id";
import { createTask } from "./create-task.server";
import { setTaskRunner } from "./runner.server";

const runner = new RecordingRunner();
beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(runner);
});
beforeEach(() => {
  runner.dispatched = [];
});

async function post(cookie: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const res = await run(() =>
    action(
      args(
        request("/api/tasks", {
          method: "POST",
          cookie,
          body: raw,
          headers: { "Content-Type": "application/json", ...headers },
        }),
      ),
    ),
  );
  // Every answer is one the API description allows (app/api-docs).
  expect(answerProblem("POST", "/api/tasks", res.status, res.body)).toBeNull();
  return res;
}
const taskCount = async () =>
  Number(
    (
      await db()
        .selectFrom("task")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("POST /api/tasks", () => {
  it("answers 202 {taskId} with Location, stores a pending task and dispatches it", async () => {
    const user = await signedIn(["user"]);
    const res = await post(user.cookie, { type: "report.generate", payload: { durationMs: 10 } });
    expect(res.status).toBe(202);
    const { taskId } = res.body as { taskId: string };
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("Location")).toBe(`/api/tasks/${taskId}`);
    const row = await db().selectFrom("task").selectAll().where("id", "=", taskId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: "report.generate", status: "pending", user_id: user.id });
    expect(JSON.parse(row.payload!)).toEqual({ durationMs: 10 });
    expect(runner.dispatched).toEqual([taskId]);
    const audit = await db().selectFrom("audit_log").selectAll().where("target_id", "=", taskId).execute();
    expect(audit).toMatchObject([{ action: "task.create", actor_id: user.id }]);
  });

  it("stores the task and its audit row in one transaction: a failed audit write leaves no task, undispatched", async () => {
    const user = await signedIn(["user"]);
    const before = await taskCount();
    const sessionUser = {
      ...user,
      roles: ["user"],
      permissions: new Set(["dashboard.access"]),
      isSuperAdmin: false,
    } as unknown as Parameters<typeof createTask>[0];
    await expect(
      createTask(sessionUser, { type: "report.generate" }, async () => {
        throw new Error("audit failed");
      }),
    ).rejects.toThrow("audit failed");
    expect(await taskCount()).toBe(before);
    expect(runner.dispatched).toEqual([]);
  });

  it("accepts a missing payload", async () => {
    const user = await signedIn(["user"]);
    expect((await post(user.cookie, { type: "report.generate" })).status).toBe(202);
  });

  it("answers 401 without a session and 403 for a guest, writing nothing", async () => {
    const before = await taskCount();
    expect(await post(undefined, { type: "report.generate" })).toMatchObject({
      status: 401,
      body: { error: "unauthorized" },
    });
    const guest = await signedIn(["guest"]);
    expect(await post(guest.cookie, { type: "report.generate" })).toMatchObject({
      status: 403,
      body: { error: "forbidden", permission: "dashboard.access" },
    });
    expect(await taskCount()).toBe(before);
    expect(runner.dispatched).toEqual([]);
  });

  it.each([
    ["malformed JSON", "{not json"],
    ["an empty body", ""],
    ["a JSON array", [1, 2]],
    ["no type", { payload: {} }],
    ["an unknown type", { type: "nope.unknown" }],
    ["a bad payload", { type: "report.generate", payload: { durationMs: -5 } }],
    ["a payload of the wrong kind", { type: "report.generate", payload: { fail: "yes" } }],
  ])("answers 400 invalid_request for %s and writes no row", async (_name, body) => {
    const user = await signedIn(["user"]);
    const before = await taskCount();
    const res = await post(user.cookie, body);
    expect(res).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(await taskCount()).toBe(before);
    expect(runner.dispatched).toEqual([]);
  });

  it("answers 413 for a body over 64 KB and writes no row", async () => {
    const user = await signedIn(["user"]);
    const before = await taskCount();
    const big = { type: "report.generate", payload: { padding: "x".repeat(70 * 1024) } };
    expect(await post(user.cookie, big)).toMatchObject({ status: 413, body: { error: "payload_too_large" } });
    // Also when no Content-Length announces it (a streamed body).
    const req = new Request("http://localhost:3000/api/tasks", {
      method: "POST",
      headers: { Cookie: user.cookie, "Content-Type": "application/json" },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode("x".repeat(8 * 1024)));
          c.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(await run(() => action(args(req)))).toMatchObject({ status: 413 });
    expect(await taskCount()).toBe(before);
  });

  it("caps the demonstration duration at 60 s instead of refusing it", async () => {
    const user = await signedIn(["user"]);
    expect(
      (await post(user.cookie, { type: "report.generate", payload: { durationMs: 600_000 } })).status,
    ).toBe(202);
  });

  it("needs user.read for users.export", async () => {
    const user = await signedIn(["user"]);
    const before = await taskCount();
    expect(await post(user.cookie, { type: "users.export" })).toMatchObject({
      status: 403,
      body: { error: "forbidden", permission: "user.read" },
    });
    expect(await taskCount()).toBe(before);
    const manager = await signedIn(["manager"]);
    expect((await post(manager.cookie, { type: "users.export" })).status).toBe(202);
  });
});

describe("GET /api/tasks and /api/tasks/:id", () => {
  const getTask = (id: string, cookie?: string) =>
    run(() => getOne(args(request(`/api/tasks/${id}`, { cookie }), { id })));
  const getList = (cookie?: string, query = "") =>
    run(() => list(args(request(`/api/tasks${query}`, { cookie }))));

  it("returns the owner's task in the documented shape", async () => {
    const user = await signedIn(["user"]);
    const { taskId } = (await post(user.cookie, { type: "report.generate", payload: { fail: true } }))
      .body as { taskId: string };
    const res = await getTask(taskId, user.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: taskId,
      type: "report.generate",
      status: "pending",
      payload: { fail: true },
      result: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: null,
    });
  });

  it("answers 404 to another user (IDOR) and for unknown ids, 401 without a session; a super admin reads any", async () => {
    const a = await signedIn(["user"]);
    const b = await signedIn(["admin"]);
    const { taskId } = (await post(a.cookie, { type: "report.generate" })).body as { taskId: string };
    expect(await getTask(taskId, b.cookie)).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect(await getTask("00000000-0000-0000-0000-000000000000", a.cookie)).toMatchObject({ status: 404 });
    expect(await getTask(taskId)).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    const root = await signedIn(["super_admin"]);
    expect((await getTask(taskId, root.cookie)).status).toBe(200);
  });

  it("lists only the caller's tasks, newest first, in pages", async () => {
    const a = await signedIn(["user"]);
    const b = await signedIn(["user"]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(((await post(a.cookie, { type: "report.generate" })).body as { taskId: string }).taskId);
      // Distinct creation times, so "newest first" has one right answer.
      await new Promise((r) => setTimeout(r, 3));
    }
    await post(b.cookie, { type: "report.generate" });

    const all = await getList(a.cookie);
    expect(all.status).toBe(200);
    const tasks = (all.body as { tasks: { id: string }[] }).tasks;
    expect(tasks.map((t) => t.id)).toEqual([...ids].reverse());

    const first = (await getList(a.cookie, "?limit=2")).body as {
      tasks: { id: string }[];
      nextCursor: string;
    };
    expect(first.tasks.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    const second = (await getList(a.cookie, `?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`))
      .body as { tasks: { id: string }[]; nextCursor: string | null };
    expect(second.tasks.map((t) => t.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();

    expect(await getList()).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    expect(await getList(a.cookie, "?limit=0")).toMatchObject({
      status: 400,
      body: { error: "invalid_request" },
    });
  });

  // PostgreSQL compares the cursor's time with a timestamptz column: text that is no time was a
  // 500 there (found by the fuzz test), and NUL cannot be compared at all.
  it.each([
    "a%00|b",
    "2026-01-01T00%3A00%3A00.000Z%7C%00",
    "%00%7C%00",
    "%25%7C_",
    "a|b",
    "9999-99-99T00%3A00%3A00.000Z%7Cx",
    "2026-01-01T00%3A00%3A00.000Z%7Cnot-a-uuid",
  ])("refuses a cursor it never gave (%s) as invalid", async (cursor) => {
    const a = await signedIn(["user"]);
    expect(await getList(a.cookie, `?cursor=${cursor}`)).toMatchObject({
      status: 400,
      body: { error: "invalid_request" },
    });
  });
});
