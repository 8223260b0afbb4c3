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

/** Which engine a handle talks to, for the few places (migrations, bus, queue) that must know. */
export function dialectOf(db: Kysely<unknown>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

export type CreateDbOptions = {
  poolSize?: number;
  /** Kysely's query log: called with every query's duration (the app's metrics). */
  log?: (event: LogEvent) => void;
};

const pools = new WeakMap<object, pg.Pool>();

/** The pg pool behind a PostgreSQL handle, for libraries that take one (shared rate limits, the queue). */
export function postgresPoolOf(db: object): pg.Pool | undefined {
  return pools.get(db);
}

const sqliteHandles = new WeakMap<object, SQLite.Database>();

/** The better-sqlite3 database behind a SQLite handle, for a synchronous look before a query (db/like.ts). */
export function sqliteHandleOf(db: object): SQLite.Database | undefined {
  return sqliteHandles.get(db);
}

/** A database failure as one line for a command-line tool (connection errors carry no message of their own). */
export function describeDbError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeDbError(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return error.message || code || error.name;
  }
  return String(error);
}

/** The only place that knows which database engine is underneath. */
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
 * SQLite plans with made-up row counts until ANALYZE has run: it takes any equality on an index
 * for a handful of rows, so `status = 'active'` would win over a list of search hits (db/like.ts)
 * at 100k users. `PRAGMA optimize` analyses the tables that never were or have grown or shrunk a
 * lot since, on opening and then hourly, as SQLite advises for long-lived connections;
 * analysis_limit keeps it to milliseconds on big tables. PostgreSQL's autovacuum does the same.
 */
function keepStatistics(sqlite: SQLite.Database) {
  sqlite.pragma("analysis_limit = 1000");
  const refresh = () => {
    if (!sqlite.open) return clearInterval(timer);
    try {
      sqlite.pragma("optimize = 0x10002");
    } catch {
      // Busy or read-only for the moment: plans stay as they were, the next hour tries again.
    }
  };
  const timer = setInterval(refresh, STATISTICS_EVERY_MS);
  timer.unref();
  refresh();
}

/** Distinct SQL texts kept prepared; the app has a few hundred, built by the same query builders. */
const STATEMENT_CACHE_SIZE = 1_000;

/**
 * Kysely prepares every query afresh, and preparing (parsing and planning the SQL) was a tenth of
 * a page's database time (decision 041). The same SQL text gets the same prepared statement back
 * instead, unless that one is busy (a streamed read still running), which gets a fresh one.
 * SQLite re-prepares a statement itself when a migration changes the schema under it.
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

// The app's row types are the same on both engines: timestamps as ISO-8601 strings, JSON as
// text (callers JSON.parse), counts as numbers. These parsers keep PostgreSQL's answers in
// that shape instead of Date objects, parsed objects and bigint strings.
const OID = { int8: 20, numeric: 1700, timestamptz: 1184, timestamp: 1114, json: 114, jsonb: 3802 };

function parseTimestamp(text: string): string {
  // The session runs in UTC, so PostgreSQL prints "2024-05-01 10:00:00.123+00".
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

/** How long opening a connection may take before it counts as the database being unreachable. */
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * What bounds a connection's waits, on every pool and client the app opens (requests, the queue
 * and its heartbeat, the event listener). A peer that stops inside a transaction (a paused VM, a
 * cut network) would otherwise hold its locks, the event log's among them, until its socket dies,
 * hours later (issue 34; docs/operations.md, "A database restart or failover"):
 * - the server ends a session left idle inside a transaction for 5 s, which rolls it back and
 *   releases its locks; the app's transactions wait on nothing but their own queries, so a gap that
 *   long means the process stopped (a transaction that must outlive it sets its own);
 * - TCP keepalive from 10 s of silence on, so a connection whose server vanished is found dead
 *   (the operating system's probes then decide how soon) rather than waited on for hours;
 * - connecting gives up after 2 s: a request then fails as unavailable (503, db/unavailable.ts).
 * No statement_timeout or lock_timeout for every session: migrations and the schema-change lock
 * may rightly wait long. The event log bounds its own lock wait (app/events/event-log.server.ts).
 */
const CONNECTION_BOUNDS = {
  connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  idle_in_transaction_session_timeout: 5_000,
} as const satisfies pg.ClientConfig;

/**
 * Where and how to connect, for a pool or a client of any library: the address, the session's
 * settings and the bounds. `?schema=NAME` on the URL puts every connection's search_path on that
 * schema, which is how each test file (and the two-instance test) gets a database of its own
 * inside one PostgreSQL; `?options=` adds settings of the operator's (or the tests') own.
 */
export function connectionSettings(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema");
  // libpq's own `?options=-c name=value` (settings for every session): node-postgres lets the URL's
  // replace the `options` given below, which silently lost the app's TimeZone and search_path.
  // Both are kept, the URL's after the app's.
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

/** The app's own pool: the settings above, its size, and the type parsers that keep rows engine-neutral. */
export function postgresConfig(databaseUrl: string, options: CreateDbOptions = {}): pg.PoolConfig {
  return { ...connectionSettings(databaseUrl), max: options.poolSize ?? 10, types };
}

function postgresPool(databaseUrl: string, options: CreateDbOptions): pg.Pool {
  const pool = new pg.Pool(postgresConfig(databaseUrl, options));
  // A client losing its connection (a server restart, failover, admin_shutdown) emits 'error'.
  // The pool listens only while a client is idle; one checked out (inside a Kysely transaction,
  // between two of its queries) had no listener, and node ends the process on an unheard 'error'.
  // The query in flight fails on its own, the pool drops the client when it is released, and the
  // next checkout connects afresh, so there is nothing to do here but to hear it.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}
