import type SQLite from "better-sqlite3";
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import { dialectOf, sqliteHandleOf } from "./connection";

// Substring search: docs/decisions/011-indexed-substring-search.md.

/** `text` with % _ \ taken literally in a LIKE written with `escape '\'` (SQLite's has none unless told). */
export function likeLiteral(text: string): string {
  return text.replace(/[%_\\]/g, "\\$&");
}

/** Lower-cased, with % _ \ taken literally. */
function containsPattern(text: string): string {
  return `%${likeLiteral(text.toLowerCase())}%`;
}

/** A scan, for small tables (roles); large ones use searchText, which answers exactly the same. */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}

export const SEARCH_COLUMNS = {
  user: ["name", "email"],
  team: ["name"],
  audit_log: ["actor_email", "target_id"],
} as const;

export type SearchTable = keyof typeof SEARCH_COLUMNS;
export type SearchColumn<T extends SearchTable> = (typeof SEARCH_COLUMNS)[T][number];

/** A trigram index knows nothing of shorter text. */
const MIN_INDEXED_LENGTH = 3;

/** Past this many hits, walking the table in the query's order meets a page of matches sooner. */
export const DENSE_MATCHES = 5000;

export type SearchOptions = {
  /** A query with a narrow index range of its own says how many hits are worth fetching first (decision 023). */
  dense?: number;
};

/**
 * `containsText` answered from the substring index (decision 011): the same rows, the same case
 * rules. The table must appear in the query under its own name (no alias).
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
    // A transaction or a handle opened elsewhere: no synchronous look ahead.
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

export function ftsTable(table: SearchTable, column: string): string {
  return `${table}_${column}_search`;
}

function indexHits(handle: SQLite.Database, fts: string, query: string, dense: number): number[] {
  return handle
    .prepare(`select rowid from "${fts}" where "${fts}" match ? limit ?`)
    .pluck()
    .all(query, dense + 1) as number[];
}

function usesTrigrams(text: string): boolean {
  return [...text.toLowerCase()].length >= MIN_INDEXED_LENGTH;
}

/** Nothing is syntax but the doubled quote, so `*`, `:`, `-`, AND, OR, NEAR are text. */
function ftsQuery(text: string): string {
  return `"${text.toLowerCase().replaceAll('"', '""')}"`;
}

/**
 * `= any(array(subquery))` is an index condition on PostgreSQL even under an OR, where
 * `in (subquery)` is only a filter that makes the whole OR a table scan.
 */
export function inIds<DB, S, TB extends keyof S, O>(
  db: Kysely<DB>,
  column: string,
  ids: SelectQueryBuilder<S, TB, O>,
): RawBuilder<boolean> {
  if (dialectOf(db as Kysely<unknown>) === "postgres")
    return sql<boolean>`${sql.ref(column)} = any(array${ids})`;
  return sql<boolean>`${sql.ref(column)} in ${ids}`;
}
