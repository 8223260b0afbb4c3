import { CompiledQuery, sql } from "kysely";
import { vi } from "vitest";
import { db } from "../../app/db.server";
import { onPostgres } from "../postgres-schema";

// For the tests that show each substring search runs on its index (docs/decisions/011-*.md):
// rows enough for a planner to tell a lookup from a scan, the queries a domain function runs,
// and their plans.

const USERS = 3000;
const TEAMS = 300;
const AUDIT_ROWS = 2 * USERS;

// Names and addresses made of varied syllables, as real ones are: a search for one person then
// has rare trigrams to go by (rows that all share most of their trigrams, "Person 1" to
// "Person 3000", make a trigram index little better than a scan at this size).
const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ren",
  "sto",
  "vu",
  "bar",
  "el",
  "dun",
  "qi",
  "zo",
  "pa",
  "tri",
  "ne",
  "go",
  "wha",
];
const word = (n: number, salt: number) => {
  let out = "";
  for (let x = (n + 1) * 2_654_435_761 + salt * 40_503, i = 0; i < 3; i++, x = Math.floor(x / 16))
    out += SYLLABLES[x % 16];
  return out;
};
export const planUser = (n: number) => ({
  id: `plan-user-${n}`,
  name: `${word(n, 1)} ${word(n, 2)}`,
  email: `${word(n, 2)}.${n}@${word(n % 7, 3)}.test`,
});
export const planTeam = (n: number) => ({ id: `plan-team-${n}`, name: `${word(n, 4)} team` });

/** Users, teams, and audit rows by and about them, as planUser and planTeam say; analysed. */
export async function fillForPlans() {
  const at = (n: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") - n * 60_000).toISOString();
  const users = Array.from({ length: USERS }, (_, n) => ({
    ...planUser(n),
    status: n % 20 ? ("active" as const) : ("disabled" as const),
    // Both verified states, as real accounts: the users list reads each (status, verified) pair
    // apart (docs/decisions/012), and an empty pair is cheapest to read without the search.
    email_verified: n % 4 ? 1 : 0,
    created_at: at(n),
    updated_at: at(n),
  }));
  for (let i = 0; i < users.length; i += 500)
    await db()
      .insertInto("user")
      .values(users.slice(i, i + 500))
      .execute();
  const teams = Array.from({ length: TEAMS }, (_, n) => ({
    ...planTeam(n),
    description: "",
    created_at: at(n),
    updated_at: at(n),
  }));
  await db().insertInto("team").values(teams).execute();
  const audit = Array.from({ length: AUDIT_ROWS }, (_, n) => ({
    id: `plan-audit-${n}`,
    actor_id: planUser(n % USERS).id,
    actor_email: planUser(n % USERS).email,
    action: "user.update",
    target_type: n % 3 ? "user" : "team",
    target_id: n % 3 ? planUser((n * 7) % USERS).id : planTeam(n % TEAMS).id,
    created_at: at(n),
  }));
  for (let i = 0; i < audit.length; i += 500)
    await db()
      .insertInto("audit_log")
      .values(audit.slice(i, i + 500))
      .execute();
  // VACUUM too on PostgreSQL: it fills in the GIN indexes' own statistics, which autovacuum keeps
  // in a live database; a GIN index filled by inserts alone is priced as if it were enormous.
  await (onPostgres ? sql`vacuum analyze "user", team, audit_log` : sql`analyze`).execute(db());
}

/** The queries `fn` sends to the database, compiled (sql and parameters). */
async function queriesOf(fn: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const spy = vi.spyOn(db().getExecutor(), "executeQuery");
  try {
    await fn();
    return spy.mock.calls.map(([query]) => query as CompiledQuery);
  } finally {
    spy.mockRestore();
  }
}

/**
 * The plan of a query as lines of text: SQLite's EXPLAIN QUERY PLAN details; PostgreSQL's EXPLAIN
 * with reading the table whole or walking an index in order (both read every row when few match)
 * priced out, so the index that finds the rows shows up. These tables are small: at 100k users
 * and 1M log rows the planner takes the trigram indexes on its own (docs/decisions/011-*.md).
 */
async function planOf(query: CompiledQuery): Promise<string[]> {
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
      await sql`set enable_indexscan = off`.execute(c);
      try {
        const { rows } = await c.executeQuery<{ "QUERY PLAN": string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        return rows.map((r) => r["QUERY PLAN"]);
      } finally {
        await sql`reset all`.execute(c);
      }
    });
}

/** The plans of the queries `fn` runs that search text (a LIKE), with their sql, for messages. */
export async function searchPlansOf(fn: () => Promise<unknown>) {
  const queries = (await queriesOf(fn)).filter((q) => / like /.test(q.sql));
  return Promise.all(queries.map(async (q) => ({ sql: q.sql, plan: await planOf(q) })));
}

/**
 * What a plan must show for a search of `table` on its index, on the engine under test: on
 * PostgreSQL the trigram indexes named, and no node reading `table` that tests the text (or a
 * list of ids) row by row instead (a Filter, as opposed to an Index Cond or a Recheck Cond).
 */
export function searchesOnIndex(plan: string[], table: string, indexes: string[]): string[] {
  const problems: string[] = [];
  const text = plan.join("\n");
  if (onPostgres) {
    for (const index of indexes)
      if (!text.includes(`Bitmap Index Scan on ${index}`)) problems.push(`no Bitmap Index Scan on ${index}`);
    let reading: string | undefined;
    for (const line of plan) {
      // A node ("->  Bitmap Heap Scan on audit_log", or the top one) starts; its details follow.
      if (line.includes("->") || /^\S/.test(line)) reading = / on "?(\w+)"?/.exec(line)?.[1];
      if (reading !== table) continue;
      if (/Seq Scan/.test(line)) problems.push(`a Seq Scan on ${table}`);
      if (/^\s*Filter:.*(~~|SubPlan|ANY \()/.test(line))
        problems.push(`${table} filtered row by row: ${line.trim()}`);
    }
  } else {
    if (!text.includes(`SEARCH ${table} USING INTEGER PRIMARY KEY (rowid=?)`))
      problems.push(`${table} is not read by rowid (the index hits)`);
    if (new RegExp(`^SCAN ${table}\\b`, "m").test(text)) problems.push(`a SCAN of ${table}`);
  }
  return problems;
}
