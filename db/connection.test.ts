import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createDb } from "./connection";

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
