import { CompiledQuery, type Kysely, sql } from "kysely";
import { vi } from "vitest";
import { dialectOf } from "../../db/connection";
import type { Database } from "../../db/schema";

// Query plans for the "no full scan of a large table" tests (docs/decisions/012): run a list
// function, capture every statement it sends, and ask the engine how it would run each one.

/** Tables that grow with use; a list must reach their rows through an index range. */
const LARGE_TABLES = [
  "user",
  "user_role",
  "audit_log",
  "task",
  "notification",
  "broadcast",
  "mail_log",
  "team_member",
  "session",
  "user_token",
];

/** Runs `fn` and returns what it returned and every statement it sent through `db`. */
export async function captureQueries<T>(db: Kysely<Database>, fn: () => Promise<T>) {
  const executor = db.getExecutor();
  const original = executor.executeQuery.bind(executor);
  const queries: CompiledQuery[] = [];
  const spy = vi.spyOn(executor, "executeQuery").mockImplementation((query) => {
    queries.push(query);
    return original(query);
  });
  try {
    return { result: await fn(), queries };
  } finally {
    spy.mockRestore();
  }
}

type SqlitePlanRow = { id: number; parent: number; detail: string };
type PgNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Cond"?: string;
  Filter?: string;
  Plans?: PgNode[];
};

export type Plan = { text: string; problems: string[] };

const big = new Set(LARGE_TABLES);

/**
 * SQLite: a `SCAN <large table>` without an index, or a temporary B-tree that sorts the rows
 * of a large table read beside it (a sort of every matching row rather than an index order).
 */
function sqliteProblems(rows: SqlitePlanRow[]): string[] {
  const problems: string[] = [];
  const tableOf = (detail: string) => /^(?:SCAN|SEARCH) (\S+)/.exec(detail)?.[1];
  for (const row of rows) {
    const table = tableOf(row.detail);
    if (
      table &&
      big.has(table) &&
      row.detail.startsWith("SCAN") &&
      !/USING (COVERING )?INDEX/.test(row.detail)
    )
      problems.push(`full scan: ${row.detail}`);
    if (/USE TEMP B-TREE FOR .*ORDER BY/.test(row.detail)) {
      // The rows sorted are those read beside it, also through an OR of several indexes (not
      // those of a subquery, which has its own LIMIT).
      const beside = (parent: number): SqlitePlanRow[] =>
        rows
          .filter((r) => r.parent === parent && r !== row)
          .flatMap((r) => (/^(MULTI-INDEX OR|INDEX \d+)/.test(r.detail) ? beside(r.id) : [r]));
      const sorted = beside(row.parent)
        .map((r) => tableOf(r.detail))
        .filter((t) => t && big.has(t));
      if (sorted.length) problems.push(`sorts the rows of ${sorted.join(", ")}: ${row.detail}`);
    }
  }
  return problems;
}

/**
 * PostgreSQL: a Seq Scan of a large table; a Sort over a large table's scan with no Limit in
 * between (every matching row sorted); an index walked with no Index Cond, unless it is only
 * the first rows of it (a Limit above, no Filter).
 */
function pgProblems(root: PgNode): string[] {
  const problems: string[] = [];
  const visit = (node: PgNode, limited: boolean, sortedBelow: boolean) => {
    const type = node["Node Type"];
    const table = node["Relation Name"];
    if (table && big.has(table)) {
      if (type === "Seq Scan") problems.push(`full scan: Seq Scan on ${table}`);
      else if (sortedBelow) problems.push(`sorts the rows of ${table} (${type})`);
      else if (/^Index( Only)? Scan$/.test(type) && !node["Index Cond"] && (node.Filter || !limited))
        // A filter on an index walked from one end reads the whole table when few rows match.
        problems.push(`reads all of ${table} (${type} without an index condition)`);
    }
    const isLimit = type === "Limit";
    // An Incremental Sort only orders rows that tie on an index's leading columns: not a sort
    // of every matching row.
    const isSort = type === "Sort";
    for (const child of node.Plans ?? [])
      visit(child, limited || isLimit, isLimit ? false : sortedBelow || isSort);
  };
  visit(root, false, false);
  return problems;
}

/**
 * How the engine would run `query`. On PostgreSQL the planner is told to avoid sequential scans
 * and, unless `sorts` is set, sorts (the test tables are tiny, where either is cheapest): what
 * remains shows whether an index can serve the filter and the order at all.
 */
async function planOf(db: Kysely<Database>, query: CompiledQuery, sorts = false): Promise<Plan> {
  if (dialectOf(db as Kysely<unknown>) === "sqlite") {
    const { rows } = await db.executeQuery<SqlitePlanRow>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return {
      text: rows.map((r) => `${r.id}:${r.parent} ${r.detail}`).join("\n"),
      problems: sqliteProblems(rows),
    };
  }
  const settings = ["enable_seqscan", ...(sorts ? [] : ["enable_sort", "enable_mergejoin"])];
  return db.connection().execute(async (conn) => {
    // Without sorts, a merge join walks whole indexes in join order instead of probing them.
    for (const name of settings) await sql.raw(`set ${name} = off`).execute(conn);
    try {
      const { rows } = await conn.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      // JSON stays text on this connection (db/connection.ts).
      const plan = (JSON.parse(rows[0]!["QUERY PLAN"]) as { Plan: PgNode }[])[0]!.Plan;
      return { text: JSON.stringify(plan, null, 1), problems: pgProblems(plan) };
    } finally {
      for (const name of settings) await sql.raw(`reset ${name}`).execute(conn);
    }
  });
}

/**
 * Every statement `fn` sends, with its plan's problems. `sortsAllowed` names tables whose
 * matching rows are few by nature (a person's sessions, a small role's people): sorting those
 * is the right plan, so the engine may, and the test says why.
 */
export async function plansOf<T>(
  db: Kysely<Database>,
  fn: () => Promise<T>,
  options: { sortsAllowed?: string[] } = {},
) {
  const { result, queries } = await captureQueries(db, fn);
  // Statistics as autovacuum keeps them: without any, PostgreSQL guesses row counts and may
  // prefer a whole index in join order over a lookup by key.
  if (dialectOf(db as Kysely<unknown>) === "postgres")
    await sql.raw(`analyze ${LARGE_TABLES.map((t) => `"${t}"`).join(", ")}`).execute(db);
  const allowed = new Set(options.sortsAllowed ?? []);
  const serious = (problem: string) => {
    const table = /^sorts the rows of ([a-z_]+)/.exec(problem)?.[1];
    return !(table && allowed.has(table));
  };
  const plans = [];
  for (const query of queries) {
    // Sorting is left to the engine only in statements that read a table allowed to sort.
    const sorts = [...allowed].some((table) => query.sql.includes(`"${table}"`));
    const plan = await planOf(db, query, sorts);
    plans.push({ sql: query.sql, text: plan.text, problems: plan.problems.filter(serious) });
  }
  return { result, plans };
}

/** The statements whose plans have problems, with the plan, for a readable failure. */
export function badPlans(plans: { sql: string; text: string; problems: string[] }[]) {
  return plans.filter((p) => p.problems.length > 0);
}
