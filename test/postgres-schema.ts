import { randomBytes } from "node:crypto";
import pg from "pg";
import { SCHEMA_CHANGE_LOCK } from "../db/migrate";

/** True when this vitest run targets PostgreSQL; tests of SQLite-only behaviour skip on it. */
export const onPostgres = process.env.TEST_DATABASE === "postgres";

/** The server URL tests run against, e.g. postgres://postgres@127.0.0.1:5432/test. */
export function testPostgresUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error("TEST_DATABASE=postgres needs TEST_POSTGRES_URL (postgres://user@host:port/db)");
  return url;
}

/** A url for a schema of its own (see postgresConfig's `?schema=`). */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return u.toString();
}

/**
 * Creates an empty schema `t_<random>` and points DATABASE_URL at it, so test files running
 * in parallel never see each other's rows; drop() removes it with everything in it.
 */
export async function createTestSchema() {
  const url = testPostgresUrl();
  const schema = `t_${randomBytes(6).toString("hex")}`;
  await changeSchemas(url, [`create schema ${schema}`]);
  process.env.DATABASE_URL = withSchema(url, schema);
  return {
    schema,
    url: process.env.DATABASE_URL,
    async drop() {
      // The task queue keeps its tables beside the app's (app/tasks/queue-runner.server.ts).
      await changeSchemas(url, [
        `drop schema if exists ${schema}_worker cascade`,
        `drop schema if exists ${schema} cascade`,
      ]);
    },
  };
}

/** DDL under the lock migrations take, so no file's migrator reads the catalog mid-change. */
async function changeSchemas(url: string, statements: string[]) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query("select pg_advisory_lock($1)", [SCHEMA_CHANGE_LOCK]);
    for (const statement of statements) await c.query(statement);
  } finally {
    await c.end(); // ends the session, which releases the lock
  }
}
