import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { createUser, setupDatabase } from "../test/helpers";
import { keptCounts, oldCounts } from "../test/support/old-counts";
import { writeUncounted } from "./counted";
import { migrateToLatest, withSchemaChangeLock } from "./migrate";
import { down } from "./migrations/012_maintained_counts";

beforeAll(setupDatabase);

const ts = () => new Date().toISOString();

async function team(name: string) {
  const id = randomUUID();
  await db()
    .insertInto("team")
    .values({ id, name, description: "", created_at: ts(), updated_at: ts() })
    .execute();
  return id;
}

async function broadcastTo(users: string[], read: number) {
  const id = randomUUID();
  await db()
    .insertInto("broadcast")
    .values({
      id,
      title: "T",
      message: "M",
      level: "info",
      link: null,
      audience: JSON.stringify({ kind: "all" }),
      recipient_count: users.length,
      created_by: null,
      created_at: ts(),
    })
    .execute();
  if (users.length === 0) return id;
  await db()
    .insertInto("notification")
    .values(
      users.map((userId, i) => ({
        id: randomUUID(),
        user_id: userId,
        broadcast_id: id,
        title: "T",
        message: "M",
        level: "info",
        link: null,
        read_at: i < read ? ts() : null,
        created_at: ts(),
      })),
    )
    .execute();
  return id;
}

/** Every membership's copied name is its user's name. */
async function staleNames() {
  return db()
    .selectFrom("team_member")
    .innerJoin("user", "user.id", "team_member.user_id")
    .select("user.id")
    .whereRef("team_member.member_name", "!=", "user.name")
    .execute();
}

describe("migration 012_maintained_counts", () => {
  it("backfills member and read counts and members' names on a database that had rows before it", async () => {
    // Under the lock every schema change takes: dropping tables meanwhile broke another file's
    // migrator, which reads every schema's tables ("relation t_….stat_count does not exist").
    await withSchemaChangeLock(db(), () => down(db() as never));
    await sql`delete from kysely_migration where name = '012_maintained_counts'`.execute(db());
    const users = await Promise.all(Array.from({ length: 5 }, () => createUser()));
    const [a, b] = [await team("Alpha"), await team("Beta")];
    await sql`insert into team_member (team_id, user_id, team_role, created_at) values ${sql.join(
      users.map((u, i) => sql`(${i % 2 ? a : b}, ${u.id}, 'member', ${ts()})`),
    )}`.execute(db());
    const notice = await broadcastTo(
      users.map((u) => u.id),
      3,
    );
    expect(await migrateToLatest(db())).toEqual(["012_maintained_counts"]);

    const expected = await oldCounts(db());
    expect(expected[`${a}||team.members`]).toBe(2);
    expect(expected[`${b}||team.members`]).toBe(3);
    expect(expected[`${notice}||broadcast.reads`]).toBe(3);
    expect(await keptCounts(db())).toEqual(expected);
    expect(await staleNames()).toEqual([]);

    // And from there on the triggers keep them.
    await db().deleteFrom("user").where("id", "=", users[0]!.id).execute();
    await db()
      .updateTable("notification")
      .set({ read_at: ts() })
      .where("broadcast_id", "=", notice)
      .execute();
    await db().updateTable("user").set({ name: "Renamed" }).where("id", "=", users[1]!.id).execute();
    expect(await keptCounts(db())).toEqual(await oldCounts(db()));
    expect(await staleNames()).toEqual([]);
  });

  it("writeUncounted recounts members and reads too; the copied names are set meanwhile", async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => createUser()));
    const gamma = await team("Gamma");
    const notice = await broadcastTo([], 0);
    await writeUncounted(db(), async (trx) => {
      await trx
        .insertInto("team_member")
        .values(
          users.map((u) => ({
            team_id: gamma,
            user_id: u.id,
            team_role: "member" as const,
            created_at: ts(),
          })),
        )
        .execute();
      await trx
        .insertInto("notification")
        .values(
          users.map((u) => ({
            id: randomUUID(),
            user_id: u.id,
            broadcast_id: notice,
            title: "T",
            message: "M",
            level: "info",
            link: null,
            read_at: ts(),
            created_at: ts(),
          })),
        )
        .execute();
      expect((await keptCounts(trx))[`${gamma}||team.members`]).toBeUndefined();
    });
    const kept = await keptCounts(db());
    expect(kept).toEqual(await oldCounts(db()));
    expect(kept[`${gamma}||team.members`]).toBe(4);
    expect(kept[`${notice}||broadcast.reads`]).toBe(4);
    expect(await staleNames()).toEqual([]);
    await db().deleteFrom("team").where("id", "=", gamma).execute();
    await db().deleteFrom("broadcast").where("id", "=", notice).execute();
    expect(await keptCounts(db())).toEqual(await oldCounts(db()));
  });
});
