import { CompiledQuery, sql } from "kysely";
import { vi } from "vitest";
import { db } from "../../app/db.server";
import { onPostgres } from "../postgres-schema";

// For the tests that show each substring search runs on its index (docs/decisions/011-*.md):
// rows enough for a planner to tell a lookup from a scan, the queries a domain function runs,
// and their plans.

export const PLAN_USERS = 3000;
const AUDIT_ROWS = 6000;

/** Users "Person N" <personN@plan.test>, teams "Team N", audit rows by and about them; analysed. */
export async function fillForPlans() {
  const at = (n: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") - n * 60_000).toISOString();
  const users = Array.from({ length: PLAN_USERS }, (_, n) => ({
    id: `plan-user-${n}`,
    name: `Person ${n}`,
    email: `person${n}@plan.test`,
    status: n % 20 ? "active" : "disabled",
    created_at: at(n),
    updated_at: at(n),
  }));
  for (let i = 0; i < users.length; i += 500)
    await db()
      .insertInto("user")
      .values(users.slice(i, i + 500))
      .execute();
  const teams = Array.from({ length: 300 }, (_, n) => ({
    id: `plan-team-${n}`,
    name: `Team ${n}`,
    description: "",
    created_at: at(n),
    updated_at: at(n),
  }));
  await db().insertInto("team").values(teams).execute();
  const audit = Array.from({ length: AUDIT_ROWS }, (_, n) => ({
    id: `plan-audit-${n}`,
    actor_id: `plan-user-${n % PLAN_USERS}`,
    actor_email: `person${n % PLAN_USERS}@plan.test`,
    action: "user.update",
    target_type: n % 3 ? "user" : "team",
    target_id: n % 3 ? `plan-user-${(n * 7) % PLAN_USERS}` : `plan-team-${n % 300}`,
    created_at: at(n),
  }));
  for (let i = 0; i < audit.length; i += 500)
    await db()
      .insertInto("audit_log")
      .values(audit.slice(i, i + 500))
      .execute();
  await sql`analyze`.execute(db());
}

/** The queries `fn` sends to the database, compiled (sql and parameters). */
export async function queriesOf(fn: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const spy = vi.spyOn(db().getExecutor(), "executeQuery");
  try {
    await fn();
    return spy.mock.calls.map(([query]) => query as CompiledQuery);
  } finally {
    spy.mockRestore();
  }
}

/**
 * The plan of a query as lines of text: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's
 * EXPLAIN with sequential scans priced out, so an index that can serve the query shows up in it
 * (these tables are small; at 100k rows the planner picks the same on its own).
 */
export async function planOf(query: CompiledQuery): Promise<string[]> {
  return db()
    .connection()
    .execute(async (c) => {
      if (!onPostgres) {
        const { rows } = await c.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
        );
        return rows.map((r) => r.detail);
      }
      await sql`set enable_seqscan = off`.execute(c);
      try {
        const { rows } = await c.executeQuery<{ "QUERY PLAN": string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        return rows.map((r) => r["QUERY PLAN"]);
      } finally {
        await sql`reset enable_seqscan`.execute(c);
      }
    });
}

/** The plans of the queries `fn` runs that search text (a LIKE), with their sql, for messages. */
export async function searchPlansOf(fn: () => Promise<unknown>) {
  const queries = (await queriesOf(fn)).filter((q) => / like /.test(q.sql));
  return Promise.all(queries.map(async (q) => ({ sql: q.sql, plan: await planOf(q) })));
}

/** What a plan must show for a search of `table` on its index, on the engine under test. */
export function searchesOnIndex(plan: string[], table: string, indexes: string[]): string[] {
  const problems: string[] = [];
  const text = plan.join("\n");
  if (onPostgres) {
    for (const index of indexes)
      if (!text.includes(`Bitmap Index Scan on ${index}`)) problems.push(`no Bitmap Index Scan on ${index}`);
    if (new RegExp(`Seq Scan on "?${table}"?`).test(text)) problems.push(`a Seq Scan on ${table}`);
  } else {
    if (!text.includes(`SEARCH ${table} USING INTEGER PRIMARY KEY (rowid=?)`))
      problems.push(`${table} is not read by rowid (the index hits)`);
    if (new RegExp(`^SCAN ${table}\\b`, "m").test(text)) problems.push(`a SCAN of ${table}`);
  }
  return problems;
}
