import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { onPostgres } from "../test/postgres-schema";
import { connectionSettings, createDb, postgresConfig, reuseStatements } from "./connection";

describe("a SQLite database", () => {
  it("is analysed when opened, so the planner has real row counts (db/like.ts relies on them)", async () => {
    const file = join(tmpdir(), `stats-${randomUUID()}.db`);
    try {
      const first = createDb(`file:${file}`);
      await sql`create table t (id text primary key, status text not null)`.execute(first);
      await sql`create index t_status on t (status)`.execute(first);
      await sql`insert into t (id, status)
        with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000)
        select 'id' || i, 'active' from n`.execute(first);
      await first.destroy();
      const again = createDb(`file:${file}`);
      const { rows } = await sql<{
        stat: string;
      }>`select stat from sqlite_stat1 where idx = 't_status'`.execute(again);
      await again.destroy();
      expect(rows[0]?.stat).toMatch(/^2000 \d+/);
    } finally {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    }
  });
});

// SQLite statements are prepared once per SQL text and reused (reuseStatements in connection.ts).
describe("SQLite prepared statements", () => {
  it("hands the same statement back for the same SQL, and a fresh one while it is busy", () => {
    const sqlite = new SQLite(":memory:");
    reuseStatements(sqlite);
    sqlite.exec("create table t (id integer primary key); insert into t values (1), (2), (3)");
    const text = "select id from t order by id";
    const first = sqlite.prepare(text);
    expect(sqlite.prepare(text)).toBe(first);
    const seen: number[] = [];
    for (const row of first.iterate() as Iterable<{ id: number }>) {
      seen.push(row.id);
      const other = sqlite.prepare(text);
      expect(other).not.toBe(first);
      expect(other.all()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(sqlite.prepare(text)).toBe(first);
    sqlite.close();
  });

  it("gives correct answers through Kysely for repeated queries with different values", async () => {
    const db = createDb(":memory:");
    await sql`create table t (id integer primary key, name text)`.execute(db);
    for (let i = 1; i <= 3; i++) await sql`insert into t (id, name) values (${i}, ${`n${i}`})`.execute(db);
    for (let i = 1; i <= 3; i++)
      expect((await sql`select name from t where id = ${i}`.execute(db)).rows).toEqual([{ name: `n${i}` }]);
    await db.destroy();
  });
});

// Issue 34: a peer stopped inside a transaction must not hold its locks for hours, nor a vanished
// server keep a connection waiting (the bounds are explained in connection.ts).
describe("PostgreSQL connection bounds", () => {
  const url = "postgres://app@db.example:5432/app?schema=tenant_a";

  it("are on the app's pool and on what the queue and the event listener open", () => {
    for (const config of [postgresConfig(url, { poolSize: 3 }), connectionSettings(url)]) {
      expect(config).toMatchObject({
        connectionTimeoutMillis: 2_000,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        idle_in_transaction_session_timeout: 5_000,
        options: "-c TimeZone=UTC -c search_path=tenant_a",
      });
      expect(config.connectionString).toBe("postgres://app@db.example:5432/app");
    }
    expect(postgresConfig(url, { poolSize: 3 }).max).toBe(3);
  });

  it("keep the URL's own session settings (libpq's ?options=), after the app's", () => {
    const own = `${url}&options=${encodeURIComponent("-c statement_timeout=30s")}`;
    expect(connectionSettings(own)).toMatchObject({
      connectionString: "postgres://app@db.example:5432/app",
      options: "-c TimeZone=UTC -c search_path=tenant_a -c statement_timeout=30s",
    });
  });

  it.skipIf(!onPostgres)("reach the server: its idle-in-transaction limit is 5 s", async () => {
    const handle = createDb(process.env.DATABASE_URL!);
    try {
      const { rows } = await sql<{
        idle_in_transaction_session_timeout: string;
      }>`show idle_in_transaction_session_timeout`.execute(handle);
      expect(rows[0]!.idle_in_transaction_session_timeout).toBe("5s");
    } finally {
      await handle.destroy();
    }
  });
});
