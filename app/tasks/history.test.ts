import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { jsonText } from "../../test/json-text";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { action, loader } from "../routes/dashboard.tasks/route";
import { insertTask, saveArtifact } from "./repository.server";
import type { TaskStatus, TaskView } from "./task-types";

// The task history page (/dashboard/tasks) through its loader and action: one's own tasks only,
// filtered and paged; clearing only one's own finished tasks.

beforeAll(setupDatabase);

let clock = Date.UTC(2026, 0, 1);

/** A task of `userId`'s, one second newer than the last one made here. */
async function task(userId: string, status: TaskStatus, type = "report.generate") {
  const id = await insertTask({ type, userId, payload: null });
  clock += 1000;
  const at = new Date(clock).toISOString();
  const final = status === "completed" || status === "failed";
  await db()
    .updateTable("task")
    .set({ status, created_at: at, updated_at: at, completed_at: final ? at : null })
    .where("id", "=", id)
    .execute();
  return id;
}

type Page = {
  rows: TaskView[];
  next: string | null;
  prev: string | null;
  start: number;
  finished: number;
  query: { type: string; status: string };
};

async function history(cookie: string, search = "") {
  const out = await run(() => loader(args(request(`/dashboard/tasks${search}`, { cookie }))));
  expect(out.status).toBe(200);
  return out.body as Page;
}

const post = (cookie: string, fields: Record<string, string>) =>
  run(() => action(args(formRequest("/dashboard/tasks", fields, { cookie }))));

const exists = async (id: string) =>
  (await db().selectFrom("task").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;

const clears = (userId: string) =>
  db()
    .selectFrom("audit_log")
    .select(["target_id", "details"])
    .where("action", "=", "task.clear")
    .where("actor_id", "=", userId)
    .execute();

describe("the task history", () => {
  it("lists one's own tasks, newest first, never another's (a super admin's page holds theirs alone)", async () => {
    const me = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    const root = await signedIn(["super_admin"]);
    const older = await task(me.id, "completed");
    const theirs = await task(other.id, "completed");
    const newer = await task(me.id, "pending");
    expect((await history(me.cookie)).rows.map((r) => r.id)).toEqual([newer, older]);
    const rootPage = await history(root.cookie);
    expect(rootPage.rows.map((r) => r.id)).not.toContain(theirs);
    expect(rootPage.rows.map((r) => r.id)).not.toContain(older);
  });

  it("filters by type and status, and counts the finished ones Clear would remove", async () => {
    const me = await signedIn(["admin"]);
    const exported = await task(me.id, "completed", "users.export");
    const failed = await task(me.id, "failed");
    const running = await task(me.id, "processing");
    expect((await history(me.cookie, "?type=users.export")).rows.map((r) => r.id)).toEqual([exported]);
    expect((await history(me.cookie, "?status=failed")).rows.map((r) => r.id)).toEqual([failed]);
    expect(
      (await history(me.cookie, "?type=report.generate&status=processing")).rows.map((r) => r.id),
    ).toEqual([running]);
    expect((await history(me.cookie, "?type=users.export&status=failed")).rows).toEqual([]);
    expect((await history(me.cookie)).finished).toBe(2);
  });

  it("takes a filter that names no type or status as none, and a forged cursor as the first page", async () => {
    const me = await signedIn(["user"]);
    const one = await task(me.id, "completed");
    for (const search of [
      "?type=no.such.type",
      "?status=finished",
      "?type=%00&status=%27%20or%201%3D1",
      "?after=bm90LWEtY3Vyc29y",
      `?before=${"x".repeat(3000)}`,
    ]) {
      const page = await history(me.cookie, search);
      expect(page.query, search).toEqual({ type: "", status: "" });
      expect(
        page.rows.map((r) => r.id),
        search,
      ).toEqual([one]);
    }
  });

  it("pages through 30 tasks 25 at a time, and back", async () => {
    const me = await signedIn(["user"]);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.unshift(await task(me.id, "completed"));
    const first = await history(me.cookie);
    expect(first.rows.map((r) => r.id)).toEqual(ids.slice(0, 25));
    expect(first.prev).toBeNull();
    const second = await history(me.cookie, `?after=${first.next}`);
    expect(second.rows.map((r) => r.id)).toEqual(ids.slice(25));
    expect(second).toMatchObject({ start: 26, next: null });
    const back = await history(me.cookie, `?before=${second.prev}`);
    expect(back.rows.map((r) => r.id)).toEqual(ids.slice(0, 25));
  });

  it("offers the report's demonstration controls to super admins alone", async () => {
    const demo = async (roles: string[]) =>
      ((await history((await signedIn(roles)).cookie)) as Page & { demo: boolean }).demo;
    expect(await demo(["super_admin"])).toBe(true);
    expect(await demo(["admin"])).toBe(false);
    expect(await demo(["user"])).toBe(false);
  });

  it("is for signed-in staff: a guest without dashboard access is refused", async () => {
    const guest = await signedIn(["guest"]);
    const out = await run(() => loader(args(request("/dashboard/tasks", { cookie: guest.cookie }))));
    expect(out.status).toBe(403);
  });
});

describe("clearing tasks", () => {
  it("clears one's own finished task with its file, audited", async () => {
    const me = await signedIn(["user"]);
    const id = await task(me.id, "completed", "users.export");
    await saveArtifact(id, { filename: "users.csv", contentType: "text/csv", content: "a,b\n" });
    const out = await post(me.cookie, { intent: "clear", taskId: id });
    expect(out.status).toBe(302);
    expect(await exists(id)).toBe(false);
    expect(
      await db().selectFrom("task_artifact").select("task_id").where("task_id", "=", id).execute(),
    ).toEqual([]);
    expect(await clears(me.id)).toEqual([expect.objectContaining({ target_id: id })]);
  });

  it("answers another user's task id as not found and leaves it, like a missing or malformed one", async () => {
    const me = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    const theirs = await task(other.id, "completed");
    for (const taskId of [theirs, "00000000-0000-4000-8000-000000000000", "not-a-task"]) {
      const out = await post(me.cookie, { intent: "clear", taskId });
      expect(out.status, taskId).toBe(404);
    }
    // NUL is refused before any lookup (PostgreSQL could not compare it).
    expect((await post(me.cookie, { intent: "clear", taskId: "\u0000" })).status).toBe(400);
    expect(await exists(theirs)).toBe(true);
    // Not even a super admin clears someone else's history.
    const root = await signedIn(["super_admin"]);
    expect((await post(root.cookie, { intent: "clear", taskId: theirs })).status).toBe(404);
    expect(await exists(theirs)).toBe(true);
    expect(await clears(me.id)).toEqual([]);
  });

  it("refuses a task still waiting or running: its runner would finish a row that is gone", async () => {
    const me = await signedIn(["user"]);
    for (const status of ["pending", "processing"] as const) {
      const id = await task(me.id, status);
      const out = await post(me.cookie, { intent: "clear", taskId: id });
      expect(out.status, status).toBe(403);
      expect(JSON.stringify(out.body)).toContain("Only finished tasks can be cleared");
      expect(await exists(id)).toBe(true);
    }
    expect(await clears(me.id)).toEqual([]);
  });

  it("Clear finished removes one's completed and failed tasks only: running, waiting and others' stay", async () => {
    const me = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    const done = await task(me.id, "completed");
    const failed = await task(me.id, "failed");
    const waiting = await task(me.id, "pending");
    const running = await task(me.id, "processing");
    const theirs = await task(other.id, "completed");
    const out = await post(me.cookie, { intent: "clear-finished" });
    expect(out.status).toBe(302);
    expect([await exists(done), await exists(failed)]).toEqual([false, false]);
    expect([await exists(waiting), await exists(running), await exists(theirs)]).toEqual([true, true, true]);
    expect(await clears(me.id)).toEqual([expect.objectContaining({ details: jsonText({ count: 2 }) })]);
    expect((await history(me.cookie)).finished).toBe(0);
    // Nothing left to clear: no second audit row for an empty sweep.
    expect((await post(me.cookie, { intent: "clear-finished" })).status).toBe(302);
    expect(await clears(me.id)).toHaveLength(1);
  });

  it("a guest cannot clear, and an unknown intent is refused", async () => {
    const me = await signedIn(["user"]);
    const id = await task(me.id, "completed");
    const guest = await signedIn(["guest"]);
    expect((await post(guest.cookie, { intent: "clear-finished" })).status).toBe(403);
    expect((await post(me.cookie, { intent: "clear-everyone" })).status).toBe(400);
    expect(await exists(id)).toBe(true);
  });
});
