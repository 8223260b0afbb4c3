import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { deliverThroughRoute } from "../../test/tasks";
import { db } from "../db.server";
import { loader as download } from "../routes/api.tasks.$id.download";
import { insertTask } from "./repository.server";
import { InProcessTaskRunner } from "./runner.server";

beforeAll(setupDatabase);

describe("users.export", () => {
  it("writes a CSV of users that its owner downloads from the result link", async () => {
    await createUser({
      name: '=HYPERLINK("x"), "quoted"',
      email: "csv@example.test",
      roles: ["manager", "user"],
    });
    const owner = await signedIn(["manager"]);
    const id = await insertTask({ type: "users.export", userId: owner.id, payload: undefined });
    const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
    runner.dispatch(id);
    await runner.idle();

    const task = await db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(task.status).toBe("completed");
    const result = JSON.parse(task.result!);
    expect(result).toMatchObject({ rows: expect.any(Number), downloadUrl: `/api/tasks/${id}/download` });

    const get = (cookie?: string) =>
      run(() => download(args(request(`/api/tasks/${id}/download`, { cookie }), { id })));
    const res = await get(owner.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toMatch(/^attachment; filename="users-.*\.csv"$/);
    const csv = res.body as string;
    expect(csv.split("\r\n")[0]).toBe('"name","email","roles","verified","created"');
    expect(csv).toContain(`"'=HYPERLINK(""x""), ""quoted""","csv@example.test","manager user","yes","`);
    expect(csv.trimEnd().split("\r\n")).toHaveLength(result.rows + 1);

    const other = await signedIn(["admin"]);
    expect((await get(other.cookie)).status).toBe(404);
    const plain = await signedIn(["user"]);
    expect((await get(plain.cookie)).status).toBe(404); // not theirs: no hint that it exists
    expect((await get()).status).toBe(401);
  });

  it("exports only the people ticked, or everyone the list's filters match; refuses other payloads", async () => {
    const tag = `exp${Date.now().toString(36)}`;
    const a = await createUser({ name: `${tag} Ann`, email: `${tag}-a@example.test` });
    const b = await createUser({ name: `${tag} Ben`, email: `${tag}-b@example.test` });
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", b.id).execute();
    const owner = await signedIn(["manager"]);
    const csvOf = async (payload: unknown) => {
      const id = await insertTask({ type: "users.export", userId: owner.id, payload });
      const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
      runner.dispatch(id);
      await runner.idle();
      const res = await run(() =>
        download(args(request(`/api/tasks/${id}/download`, { cookie: owner.cookie }), { id })),
      );
      // Two people made in the same millisecond have no order between them: compare sorted.
      return (res.body as string)
        .trimEnd()
        .split("\r\n")
        .slice(1)
        .map((l) => l.split(",")[1])
        .sort();
    };
    expect(await csvOf({ ids: [b.id] })).toEqual([`"${tag}-b@example.test"`]);
    expect(await csvOf({ filter: { q: tag } })).toEqual([
      `"${tag}-a@example.test"`,
      `"${tag}-b@example.test"`,
    ]);
    expect(await csvOf({ filter: { q: tag, status: "active" } })).toEqual([`"${tag}-a@example.test"`]);
    expect(a.id).toBeTruthy();
  });
});
