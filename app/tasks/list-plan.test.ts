import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db } from "../db.server";
import { listTasks } from "./repository.server";

// GET /api/tasks pages one owner's tasks newest first: with many tasks sharing a time, the
// cursor walk gives each task once, in the full order, and every page is one index range.

const TIMES = ["2026-04-01T10:00:00.000Z", "2026-04-01T10:00:00.001Z", "2026-04-02T00:00:00.000Z"];
let owner = "";

beforeAll(async () => {
  await setupDatabase();
  owner = (await createUser()).id;
  const other = (await createUser()).id;
  const rows = Array.from({ length: 40 }, (_, i) => ({
    id: randomUUID(),
    type: "report.generate",
    status: "completed" as const,
    user_id: i % 5 ? owner : other,
    payload: null,
    result: null,
    created_at: TIMES[i % 3]!,
    updated_at: TIMES[i % 3]!,
    completed_at: null,
  }));
  await db().insertInto("task").values(rows).execute();
});

describe("the task list's pages", () => {
  it("walk the owner's tasks once each, newest first, ties by id", async () => {
    const expected = await db()
      .selectFrom("task")
      .select("id")
      .where("user_id", "=", owner)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listTasks(owner, 7, cursor);
      seen.push(...page.tasks.map((t) => t.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor && seen.length < 100);
    expect(seen).toEqual(expected.map((r) => r.id));
  });

  it("each page is an index range of the owner's tasks", async () => {
    const first = await plansOf(db(), () => listTasks(owner, 7));
    expect(badPlans(first.plans)).toEqual([]);
    const next = await plansOf(db(), () => listTasks(owner, 7, first.result.nextCursor!));
    expect(badPlans(next.plans)).toEqual([]);
  });
});
