import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { findTask, insertTask } from "./repository.server";

// Ids come from URLs and signed webhook bodies; anything that is not one of ours is
// "no such task" on both databases (PostgreSQL refuses NUL in a text parameter: it was a 500).
let userId: string;
let taskId: string;
beforeAll(async () => {
  await setupDatabase();
  userId = (await createUser()).id;
  taskId = await insertTask({ type: "report.generate", userId, payload: {} });
});

describe("findTask", () => {
  it("finds a task by its id", async () => {
    expect((await findTask(taskId))?.id).toBe(taskId);
  });

  it.each([
    ["NUL", () => "a\u0000b"],
    ["its id with NUL after it", () => `${taskId}\u0000`],
    ["a very long id", () => "x".repeat(5000)],
    ["an empty id", () => ""],
    ["no uuid", () => "not-a-uuid"],
  ])("answers undefined for %s", async (_, id) => {
    expect(await findTask(id())).toBeUndefined();
  });
});
