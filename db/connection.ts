import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, type LogEvent, PostgresAdapter, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";

export type Dialect = "sqlite" | "postgres";

export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//.test(databaseUrl);
}

export function sqlitePath(databaseUrl: string): string {
  if (databaseUrl === ":memory:" || databaseUrl === "file::memory:") return ":memory:";
  const path = databaseUrl.replace(/^file:/, "");
  return resolve(path);
}

/** For the few places (migrations, bus, queue) that must know. */
export function dialectOf(db: Kysely<unknown>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

export type CreateDbOptions = {
  poolSize?: number;
  log?: (event: LogEvent) => void;
};

const pools = new WeakMap<object, pg.Pool>();

export function postgresPoolOf(db: object): pg.Pool | undefined {
  return pools.get(db);
}

const sqliteHandles = new WeakMap<object, SQLite.Database>();

export function sqliteHandleOf(db: object): SQLite.Database | undefined {
  return sqliteHandles.get(db);
}

/** Connection errors carry no message of their own. */
export function describeDbError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeDbError(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return error.message || code || error.name;
  }
  return String(error);
}

export function createDb(databaseUrl: string, options: CreateDbOptions = {}): Kysely<Database> {
  if (isPostgresUrl(databaseUrl)) {
    const pool = postgresPool(databaseUrl, options);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
    pools.set(db, pool);
    return db;
  }
  const path = sqlitePath(databaseUrl);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  keepStatistics(sqlite);
  reuseStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: options.log });
  sqliteHandles.set(db, sqlite);
  return db;
}

const STATISTICS_EVERY_MS = 3_600_000;

/**
 * Until ANALYZE has run, SQLite plans with made-up row counts and picks bad indexes;
 * `PRAGMA optimize` on opening and hourly is what SQLite advises for long-lived connections.
 */
function keepStatistics(sqlite: SQLite.Database) {
  sqlite.pragma("analysis_limit = 1000");
  const refresh = () => {
    if (!sqlite.open) return clearInterval(timer);
    try {
      sqlite.pragma("optimize = 0x10002");
    } catch {}
  };
  const timer = setInterval(refresh, STATISTICS_EVERY_MS);
  timer.unref();
  refresh();
}

const STATEMENT_CACHE_SIZE = 1_000;

/**
 * Kysely prepares every query afresh, a tenth of a page's database time (decision 041): the same
 * SQL text gets the same prepared statement back unless that one is busy.
 */
export function reuseStatements(sqlite: SQLite.Database) {
  const prepare = sqlite.prepare.bind(sqlite);
  const statements = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    const known = statements.get(source);
    if (known && !known.busy) return known;
    const statement = prepare(source);
    if (!known) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statements.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
}

// Row types are the same on both engines: ISO-8601 strings, JSON as text, counts as numbers.
const OID = { int8: 20, numeric: 1700, timestamptz: 1184, timestamp: 1114, json: 114, jsonb: 3802 };

function parseTimestamp(text: string): string {
  return new Date(`${text.replace(" ", "T").replace(/\+00$/, "")}Z`).toISOString();
}

const typeParsers: Record<number, (text: string) => unknown> = {
  [OID.int8]: Number,
  [OID.numeric]: Number,
  [OID.timestamptz]: parseTimestamp,
  [OID.timestamp]: parseTimestamp,
  [OID.json]: (text) => text,
  [OID.jsonb]: (text) => text,
};

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    typeParsers[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

const CONNECT_TIMEOUT_MS = 2_000;

/**
 * Bounds on every connection, so a peer that stops inside a transaction (a paused VM, a cut
 * network) cannot hold its locks for hours (docs/operations.md, "A database restart or failover").
 * No statement_timeout or lock_timeout for every session: migrations may rightly wait long.
 */
const CONNECTION_BOUNDS = {
  connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  idle_in_transaction_session_timeout: 5_000,
} as const satisfies pg.ClientConfig;

/** `?schema=NAME` sets search_path, which gives each test file a database of its own. */
export function connectionSettings(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema");
  // node-postgres lets the URL's `options` replace the ones given below, losing the app's TimeZone
  // and search_path: both are kept, the URL's after the app's.
  const own = url.searchParams.get("options");
  url.searchParams.delete("schema");
  url.searchParams.delete("options");
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name in DATABASE_URL`);
  const settings = [
    "-c TimeZone=UTC",
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(own ? [own] : []),
  ];
  return { connectionString: url.toString(), options: settings.join(" "), ...CONNECTION_BOUNDS };
}

export function postgresConfig(databaseUrl: string, options: CreateDbOptions = {}): pg.PoolConfig {
  return { ...connectionSettings(databaseUrl), max: options.poolSize ?? 10, types };
}

function postgresPool(databaseUrl: string, options: CreateDbOptions): pg.Pool {
  const pool = new pg.Pool(postgresConfig(databaseUrl, options));
  // A checked-out client has no listener of the pool's, and node ends the process on an unheard
  // 'error'; the query in flight fails on its own, so there is nothing to do but hear it.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}
