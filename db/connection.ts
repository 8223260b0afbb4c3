import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "./schema";

export function sqlitePath(databaseUrl: string): string {
  if (databaseUrl === ":memory:" || databaseUrl === "file::memory:") return ":memory:";
  const path = databaseUrl.replace(/^file:/, "");
  return resolve(path);
}

/** The only place that knows which database engine is underneath. */
export function createDb(databaseUrl: string): Kysely<Database> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("PostgreSQL is not supported yet: set DATABASE_URL to a file: URL");
  }
  const path = sqlitePath(databaseUrl);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}
