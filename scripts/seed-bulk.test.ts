import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "../app/audit/verify.server";
import { db } from "../app/db.server";
import type { Database } from "../db/schema";
import { setupDatabase } from "../test/helpers";
import { onPostgres } from "../test/postgres-schema";
import { insertRows } from "./bulk/insert-rows";
import { seedBulk } from "./seed-bulk";

beforeAll(setupDatabase);

const TABLES = [
  "user",
  "user_role",
  "team",
  "team_member",
  "session",
  "audit_log",
  "task",
  "mail_log",
  "broadcast",
  "notification",
] as const;

async function counts() {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await db()
      .selectFrom(table as keyof Database)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/** A row trigger counting audit inserts, standing in for the counters and search index other code keeps by trigger. */
async function auditInsertProbe() {
  await sql`create table bulk_probe (n integer not null)`.execute(db());
  await sql`insert into bulk_probe (n) values (0)`.execute(db());
  if (onPostgres) {
    await sql`create function bulk_probe_count() returns trigger language plpgsql as $$ begin update bulk_probe set n = n + 1; return new; end $$`.execute(
      db(),
    );
    await sql`create trigger bulk_probe_audit after insert on audit_log for each row execute function bulk_probe_count()`.execute(
      db(),
    );
  } else {
    await sql`create trigger bulk_probe_audit after insert on audit_log begin update bulk_probe set n = n + 1; end`.execute(
      db(),
    );
  }
  return async () => Number((await sql<{ n: number }>`select n from bulk_probe`.execute(db())).rows[0]!.n);
}

describe(`seedBulk (${onPostgres ? "PostgreSQL" : "SQLite"})`, () => {
  it("writes the spec's rows through the tables' own inserts, triggers included", async () => {
    const probe = await auditInsertProbe();
    const before = await counts();
    const spec = {
      users: 60,
      audits: 250,
      tasks: 300,
      teams: 4,
      mails: 30,
      broadcasts: 3,
      notifications: 45,
      sessions: 6,
    };
    const report = await seedBulk(db(), spec);
    const after = await counts();
    const added = Object.fromEntries(TABLES.map((t) => [t, after[t]! - before[t]!]));
    expect(added).toEqual({
      user: 60,
      // One in ten also holds admin within their team.
      user_role: 66,
      team: 4,
      // everyone in one team, and users 10, 30 and 50 (n % 10 = 0 outside team 0) in "All hands" too
      team_member: 63,
      session: 6,
      audit_log: 250,
      task: 300,
      mail_log: 30,
      broadcast: 3,
      // per broadcast: 45 / 3 - 1 bulk users, and the super admin
      notification: 45,
    });
    expect(report.rows).toEqual(added);
    expect(await probe()).toBe(250);
    // Linked as the application links them, so `npm run audit:verify` and the hourly checkpoint
    // accept the bench's log.
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
  });

  it("spreads tasks over users, statuses and 90 days, finished, with JSON payload and result", async () => {
    const tasks = await db().selectFrom("task").selectAll().execute();
    const admin = await db()
      .selectFrom("user")
      .select("id")
      .where("email", "=", "root@example.test")
      .executeTakeFirstOrThrow();
    expect(new Set(tasks.map((t) => t.status))).toEqual(new Set(["completed", "failed"]));
    expect(new Set(tasks.map((t) => t.user_id)).size).toBeGreaterThan(30);
    expect(new Set(tasks.map((t) => t.type)).size).toBeGreaterThan(1);
    const created = tasks.map((t) => Date.parse(t.created_at));
    const day = 86_400_000;
    expect(Math.max(...created) - Math.min(...created)).toBeGreaterThan(80 * day);
    expect(Math.min(...created)).toBeGreaterThan(Date.now() - 91 * day);
    for (const t of tasks) {
      expect(Date.parse(t.completed_at!)).toBeGreaterThanOrEqual(Date.parse(t.created_at));
      expect(() => JSON.parse(t.payload!)).not.toThrow();
      expect(typeof JSON.parse(t.result!)).toBe("object");
    }
    const adminNotices = await db()
      .selectFrom("notification")
      .select("id")
      .where("user_id", "=", admin.id)
      .execute();
    expect(adminNotices).toHaveLength(3);
  });

  it("splits rows into statements of the given size", async () => {
    const ts = new Date().toISOString();
    const rows = Array.from(
      { length: 20 },
      (_, i) => [`bulk-${i}`, `'quoted' "name" ${i}`, "", ts, ts] as const,
    );
    const written = await db()
      .transaction()
      .execute((trx) =>
        insertRows(
          trx,
          "team",
          [["id"], ["name"], ["description"], ["created_at", "timestamptz"], ["updated_at", "timestamptz"]],
          rows,
          { rowsPerStatement: 7 },
        ),
      );
    expect(written).toBe(20);
    const back = await db()
      .selectFrom("team")
      .select(["id", "name"])
      .where("id", "like", "bulk-%")
      .orderBy("id")
      .execute();
    expect(back).toHaveLength(20);
    expect(back.find((r) => r.id === "bulk-13")?.name).toBe(`'quoted' "name" 13`);
  });
});
