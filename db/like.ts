import { type Kysely, type RawBuilder, sql } from "kysely";
import { dialectOf } from "./connection";

/** The user's text as a LIKE pattern for "contains": lower-cased, with % _ \ taken literally. */
export function containsPattern(text: string): string {
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

/** A trigram index knows nothing of shorter text (docs/decisions/011-indexed-substring-search.md). */
export const MIN_INDEXED_LENGTH = 3;

/**
 * `containsText` on any of `columns` of `table`, answered from the substring index: the same rows,
 * the same case rules. The table must appear in the query under its own name (no alias).
 *
 * PostgreSQL: the LIKE as it is; pg_trgm's GIN indexes on `lower(col)` serve it (and recheck).
 * SQLite: FTS5's trigram index narrows to candidate rows, the LIKE then decides. The index folds
 * case for every script while SQLite's `lower()` and LIKE fold only ASCII, so it finds a superset
 * (never fewer rows) and the LIKE keeps today's answer exactly.
 */
export function searchText<DB, T extends SearchTable>(
  db: Kysely<DB>,
  table: T,
  columns: readonly SearchColumn<T>[],
  text: string,
): RawBuilder<boolean> {
  const like = sql.join(
    columns.map((c) => containsText(`${table}.${c}`, text)),
    sql` or `,
  );
  if (dialectOf(db as Kysely<unknown>) === "postgres" || !usesTrigrams(text)) return sql<boolean>`(${like})`;
  const fts = sql.table(`${table}_search`);
  return sql<boolean>`(${sql.ref(`${table}.rowid`)} in (select rowid from ${fts} where ${fts} match ${ftsQuery(columns, text)}) and (${like}))`;
}

/** Whether the lowered text (what the LIKE looks for) is long enough for the trigram index. */
export function usesTrigrams(text: string): boolean {
  return [...text.toLowerCase()].length >= MIN_INDEXED_LENGTH;
}

/**
 * An FTS5 query for the text as one quoted string in the given columns: inside double quotes
 * nothing is syntax but the quote itself (doubled), so `*`, `:`, `-`, `(`, AND, OR, NEAR are text.
 */
export function ftsQuery(columns: readonly string[], text: string): string {
  return `{${columns.join(" ")}} : "${text.toLowerCase().replaceAll('"', '""')}"`;
}
