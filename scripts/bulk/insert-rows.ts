import { CompiledQuery, type Kysely, sql } from "kysely";
import { dialectOf } from "../../db/connection";
import type { Database } from "../../db/schema";

/** SQLite stores what it is given; PostgreSQL casts. */
export type Column = readonly [name: string, pgType?: "text" | "integer" | "timestamptz" | "jsonb"];
export type Row = readonly (string | number | null)[];

// Under better-sqlite3's 32,766 bound values; near the limit the statement's cost vanishes next to the index work.
const SQLITE_VALUES_PER_STATEMENT = 30_000;
const PG_ROWS_PER_STATEMENT = 5_000;

/**
 * Ordinary INSERTs, so constraints and triggers run as for the application's own writes; PostgreSQL
 * gets one array per column through `unnest`. Run it inside a transaction: one commit is most of the speed on SQLite.
 */
export async function insertRows(
  db: Kysely<Database>,
  table: string,
  columns: readonly Column[],
  rows: Iterable<Row>,
  options: { rowsPerStatement?: number } = {},
): Promise<number> {
  const pg = dialectOf(db as Kysely<unknown>) === "postgres";
  const perBatch =
    options.rowsPerStatement ??
    (pg ? PG_ROWS_PER_STATEMENT : Math.floor(SQLITE_VALUES_PER_STATEMENT / columns.length));
  const statement = pg ? unnestInsert(table, columns) : undefined;
  let batch: Row[] = [];
  let written = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const query = statement
      ? CompiledQuery.raw(
          statement,
          columns.map((_, i) => batch.map((r) => r[i] ?? null)),
        )
      : CompiledQuery.raw(valuesInsert(table, columns, batch.length), batch.flat());
    await db.executeQuery(query);
    written += batch.length;
    batch = [];
  };
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= perBatch) await flush();
  }
  await flush();
  return written;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

const valuesCache = new Map<string, string>();

function valuesInsert(table: string, columns: readonly Column[], rowCount: number): string {
  const key = `${table}|${columns.length}|${rowCount}`;
  let text = valuesCache.get(key);
  if (!text) {
    const tuple = `(${columns.map(() => "?").join(",")})`;
    text = `insert into ${quote(table)} (${columns.map((c) => quote(c[0])).join(",")}) values ${Array(rowCount).fill(tuple).join(",")}`;
    valuesCache.set(key, text);
  }
  return text;
}

function unnestInsert(table: string, columns: readonly Column[]): string {
  const names = columns.map((c) => quote(c[0])).join(",");
  const arrays = columns.map((c, i) => `$${i + 1}::${c[1] === "integer" ? "integer" : "text"}[]`).join(",");
  const casts = columns
    .map(([, type], i) => (type === "jsonb" || type === "timestamptz" ? `c${i}::${type}` : `c${i}`))
    .join(",");
  const aliases = columns.map((_, i) => `c${i}`).join(",");
  return `insert into ${quote(table)} (${names}) select ${casts} from unnest(${arrays}) as u(${aliases})`;
}

/** For a database nobody else writes: no fsync, the journal in memory. Restored afterwards. */
export async function withBulkLoadSettings<DB, T>(db: Kysely<DB>, fn: () => Promise<T>): Promise<T> {
  if (dialectOf(db as Kysely<unknown>) === "postgres") return fn();
  const read = async (name: string) =>
    Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0] as string | number;
  const before = {
    journal_mode: await read("journal_mode"),
    synchronous: await read("synchronous"),
    cache_size: await read("cache_size"),
  };
  const set = (name: string, value: string | number) => sql.raw(`pragma ${name} = ${value}`).execute(db);
  // Leaving WAL fails while another connection has the file open; the load then just runs in WAL.
  if (before.journal_mode === "wal") await set("journal_mode", "memory").catch(() => undefined);
  await set("synchronous", "off");
  await set("cache_size", -512_000); // KiB: 500 MB, enough to hold the large size's hot indexes
  try {
    return await fn();
  } finally {
    await set("cache_size", before.cache_size);
    await set("synchronous", before.synchronous);
    if (before.journal_mode === "wal") await set("journal_mode", "wal");
  }
}
