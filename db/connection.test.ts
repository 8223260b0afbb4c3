import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createDb, reuseStatements } from "./connection";

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
