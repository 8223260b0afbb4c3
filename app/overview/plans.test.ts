import { type Compilable, CompiledQuery, sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { db } from "../db.server";
import { countersQuery } from "./counters.server";
import { recentActivityQuery } from "./overview.server";

beforeAll(setupDatabase);

/**
 * The engine's plan for a query. On PostgreSQL sequential scans are switched off for the
 * question, because on this test's small tables a scan is cheaper and hides whether an index
 * could serve the query at all (which is what a million rows need).
 */
async function plan(query: Compilable): Promise<string> {
  const { sql: text, parameters } = query.compile();
  if (!onPostgres) {
    const rows = await db().executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
    );
    return rows.rows.map((r) => r.detail).join("\n");
  }
  return db()
    .transaction()
    .execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`explain ${text}`, [...parameters]),
      );
      return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
}

describe("the overview's reads cost the same at any data size", () => {
  it("reads its counters as two ranges of stat_count's primary key", async () => {
    const p = await plan(countersQuery("", "2026-01-01"));
    if (onPostgres) {
      expect(p).not.toMatch(/Seq Scan|Filter/);
      expect(p.match(/Index Cond: \(\(scope = .*\) AND \(day [>=]/g)).toHaveLength(2);
    } else {
      expect(
        p.match(/SEARCH stat_count USING (PRIMARY KEY|INDEX \S+) \(scope=\? AND day[>=]\?\)/g),
      ).toHaveLength(2);
    }
  });

  it("reads the newest audit rows backwards along the log's created_at index, never sorting the log", async () => {
    const p = await plan(recentActivityQuery());
    if (onPostgres) {
      expect(p).toMatch(/Index Scan Backward using audit_log_created\w*_idx/);
      expect(p).not.toMatch(/Seq Scan|Sort/);
    } else {
      expect(p).toMatch(/SCAN audit_log USING (COVERING )?INDEX audit_log_created\w*_idx/);
      expect(p).not.toMatch(/TEMP B-TREE/);
    }
  });
});
