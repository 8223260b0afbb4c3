import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { createUser, setupDatabase } from "../test/helpers";
import { keptCounts, oldCounts } from "../test/support/old-counts";
import { writeUncounted } from "./counted";
import { COUNTED_009 } from "./counted-tables";
import { migrateToLatest, withSchemaChangeLock } from "./migrate";
import { down } from "./migrations/009_aggregates";

beforeAll(setupDatabase);

const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** Rows written while no trigger counts them: the database as it was before migration 009. */
async function writeHistory() {
  const users: string[] = [];
  for (let i = 0; i < 6; i++) {
    const u = await createUser({ verified: i % 2 === 0, status: i % 3 ? "active" : "disabled" });
    await db()
      .updateTable("user")
      .set({ created_at: ago(i * 2) })
      .where("id", "=", u.id)
      .execute();
    users.push(u.id);
  }
  const statuses = ["pending", "processing", "completed", "failed"] as const;
  await db()
    .insertInto("task")
    .values(
      Array.from({ length: 40 }, (_, i) => ({
        id: randomUUID(),
        type: "report.generate",
        status: statuses[i % 4]!,
        user_id: users[i % users.length]!,
        payload: null,
        result: null,
        created_at: ago(i % 17),
        updated_at: ago(0),
        completed_at: null,
      })),
    )
    .execute();
  await db()
    .insertInto("audit_log")
    .values(
      Array.from({ length: 30 }, (_, i) => ({
        id: randomUUID(),
        action: i % 3 ? "auth.login.succeeded" : "user.update",
        created_at: ago(i % 20),
      })),
    )
    .execute();
  await db()
    .insertInto("mail_log")
    .values(
      (["sent", "sent", "failed", "outbox"] as const).map((status) => ({
        id: randomUUID(),
        to_address: "a@example.test",
        type: "test",
        subject: "s",
        status,
        created_at: ago(0),
      })),
    )
    .execute();
  const ts = ago(0);
  await db()
    .insertInto("team")
    .values(
      [1, 2, 3].map((i) => ({
        id: randomUUID(),
        name: `Team ${i}`,
        description: "",
        created_at: ts,
        updated_at: ts,
      })),
    )
    .execute();
  return users;
}

/** The counters 009 installs; later migrations' counters are not its to backfill. */
function only009(counts: Record<string, number>) {
  return Object.fromEntries(
    Object.entries(counts).filter(([key]) =>
      COUNTED_009.some((spec) => key.split("|")[2]!.startsWith(spec.prefix)),
    ),
  );
}

describe("migration 009_aggregates", () => {
  it("backfills every counter to what COUNT(*) says on a database that had rows before it", async () => {
    // Back to before 009 (its down() drops the triggers too: the writes below would fail on the
    // missing table otherwise), then history, then the migration as a deployment runs it.
    // Under the lock every schema change takes: dropping tables meanwhile broke another file's
    // migrator, which reads every schema's tables ("relation t_….stat_count does not exist").
    await withSchemaChangeLock(db(), () => down(db() as never));
    await sql`delete from kysely_migration where name = '009_aggregates'`.execute(db());
    const users = await writeHistory();
    expect(await migrateToLatest(db())).toEqual(["009_aggregates"]);

    const expected = only009(await oldCounts(db()));
    expect(expected["||tasks.status.failed"]).toBe(10);
    expect(Object.keys(expected).filter((k) => k.endsWith("|signins.day")).length).toBeGreaterThan(5);
    expect(only009(await keptCounts(db()))).toEqual(expected);

    // And from there on the triggers keep them.
    await db().deleteFrom("user").where("id", "=", users[0]!).execute();
    await db().updateTable("task").set({ status: "completed" }).where("status", "=", "pending").execute();
    expect(only009(await keptCounts(db()))).toEqual(only009(await oldCounts(db())));
  });

  it("writeUncounted: a bulk load skips the triggers and is counted once at the end; the triggers come back", async () => {
    const owner = (await createUser()).id;
    const ts = ago(3);
    await writeUncounted(db(), async (trx) => {
      await trx
        .insertInto("task")
        .values(
          Array.from({ length: 25 }, () => ({
            id: randomUUID(),
            type: "report.generate",
            status: "completed" as const,
            user_id: owner,
            payload: null,
            result: null,
            created_at: ts,
            updated_at: ts,
            completed_at: ts,
          })),
        )
        .execute();
      // Not counted row by row: that is the point.
      expect(await keptCounts(trx)).not.toEqual(await oldCounts(trx));
    });
    expect(await keptCounts(db())).toEqual(await oldCounts(db()));
    expect((await keptCounts(db()))[`${owner}||tasks.status.completed`]).toBe(25);

    await db().deleteFrom("task").where("user_id", "=", owner).execute();
    expect(await keptCounts(db())).toEqual(await oldCounts(db()));
  });
});
