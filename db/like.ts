import type SQLite from "better-sqlite3";
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import { dialectOf, sqliteHandleOf } from "./connection";

// Substring search. Why an index, how each engine gets one and what short or very common text
// does instead: docs/decisions/011-indexed-substring-search.md.

/** The user's text as a LIKE pattern for "contains": lower-cased, with % _ \ taken literally. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[%_\\]/g, "\\$&")}%`;
}

/**
 * Case-insensitive "contains" that treats % and _ in the user's text literally, on SQLite and
 * PostgreSQL alike (both honour ESCAPE). A scan: for small tables (roles). Large ones are
 * searched with searchText, which answers exactly the same.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}

/** The columns with a substring index (migration 010_search), by table. */
export const SEARCH_COLUMNS = {
  user: ["name", "email"],
  team: ["name"],
  audit_log: ["actor_email", "target_id"],
} as const;

export type SearchTable = keyof typeof SEARCH_COLUMNS;
export type SearchColumn<T extends SearchTable> = (typeof SEARCH_COLUMNS)[T][number];

/** A trigram index knows nothing of shorter text. */
const MIN_INDEXED_LENGTH = 3;

/**
 * Past this many index hits (SQLite), walking the table in the query's order and testing each
 * row meets a page of matches sooner than fetching and sorting every hit.
 */
export const DENSE_MATCHES = 5000;

export type SearchOptions = {
  /**
   * SQLite: past this many index hits the query walks its own order instead (DENSE_MATCHES by
   * default). Looking hits up costs about as much per hit as the walk costs per row it tests,
   * so a query that has a narrow index range of its own to walk (the log filtered by action,
   * decision 023) says how many hits are worth fetching first.
   */
  dense?: number;
};

/**
 * `containsText` on any of `columns` of `table`, answered from the substring index: the same
 * rows, the same case rules. The table must appear in the query under its own name (no alias).
 *
 * PostgreSQL: the LIKE as it is; pg_trgm's GIN indexes on `lower(col)` serve it (and recheck),
 * and the planner weighs them against an ordered scan with its statistics.
 * SQLite: FTS5's trigram index finds the candidate rows, the LIKE then decides. The index folds
 * case for every script while SQLite's `lower()` and LIKE fold only ASCII, so it finds a superset
 * (never fewer rows) and the LIKE keeps today's answer exactly. SQLite has no statistics on the
 * index, so the hits are looked up here, at once (better-sqlite3 is synchronous), and handed to
 * the query as rowids; when there are more than DENSE_MATCHES the query scans instead.
 */
export function searchText<DB, T extends SearchTable>(
  db: Kysely<DB>,
  table: T,
  columns: readonly SearchColumn<T>[],
  text: string,
  options: SearchOptions = {},
): RawBuilder<boolean> {
  const dense = options.dense ?? DENSE_MATCHES;
  const like = sql<boolean>`(${sql.join(
    columns.map((c) => containsText(`${table}.${c}`, text)),
    sql` or `,
  )})`;
  if (dialectOf(db as Kysely<unknown>) === "postgres" || !usesTrigrams(text)) return like;
  const rowid = sql.ref(`${table}.rowid`);
  const query = ftsQuery(text);
  const handle = sqliteHandleOf(db);
  if (!handle) {
    // A transaction or a handle opened elsewhere: the index in a subquery, without the look ahead.
    const inIndex = columns.map((c) => {
      const fts = sql.table(ftsTable(table, c));
      return sql`${rowid} in (select rowid from ${fts} where ${fts} match ${query})`;
    });
    return sql<boolean>`((${sql.join(inIndex, sql` or `)}) and ${like})`;
  }
  const hits = new Set<number>();
  for (const column of columns) {
    for (const hit of indexHits(handle, ftsTable(table, column), query, dense)) hits.add(hit);
    if (hits.size > dense) return like;
  }
  return sql<boolean>`(${rowid} in (select value from json_each(${JSON.stringify([...hits])})) and ${like})`;
}

/** The FTS5 table that indexes one column (migration 010_search). */
export function ftsTable(table: SearchTable, column: string): string {
  return `${table}_${column}_search`;
}

/**
 * Up to `dense` + 1 rowids an FTS5 table gives for the query. The handle's prepare() hands back
 * the statement prepared for the same text before (reuseStatements, db/connection.ts).
 */
function indexHits(handle: SQLite.Database, fts: string, query: string, dense: number): number[] {
  return handle
    .prepare(`select rowid from "${fts}" where "${fts}" match ? limit ?`)
    .pluck()
    .all(query, dense + 1) as number[];
}

/** Whether the lowered text (what the LIKE looks for) is long enough for the trigram index. */
function usesTrigrams(text: string): boolean {
  return [...text.toLowerCase()].length >= MIN_INDEXED_LENGTH;
}

/**
 * The text as an FTS5 query: one quoted string, in which nothing is syntax but the quote itself
 * (doubled), so `*`, `:`, `-`, `(`, AND, OR, NEAR are text.
 */
function ftsQuery(text: string): string {
  return `"${text.toLowerCase().replaceAll('"', '""')}"`;
}

/**
 * `column in (ids)`, written so PostgreSQL can use an index for it beside others under an OR:
 * `= any(array(subquery))` is an index condition (the array is computed once, first), where
 * `in (subquery)` is only a filter, which makes the whole OR a scan of the table.
 */
export function inIds<DB, S, TB extends keyof S, O>(
  db: Kysely<DB>,
  column: string,
  ids: SelectQueryBuilder<S, TB, O>,
): RawBuilder<boolean> {
  // A select query is written in parentheses of its own: `array(select …)`, `in (select …)`.
  if (dialectOf(db as Kysely<unknown>) === "postgres")
    return sql<boolean>`${sql.ref(column)} = any(array${ids})`;
  return sql<boolean>`${sql.ref(column)} in ${ids}`;
}
