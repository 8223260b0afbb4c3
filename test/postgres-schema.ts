import { randomBytes } from "node:crypto";
import pg from "pg";
import { SCHEMA_CHANGE_LOCK } from "../db/migrate";

/** The name the template's dump (test/database-template.ts) writes its schema under. */
export const TEMPLATE_SCHEMA_PLACEHOLDER = "template_schema_placeholder";

/** True when this vitest run targets PostgreSQL; tests of SQLite-only behaviour skip on it. */
export const onPostgres = process.env.TEST_DATABASE === "postgres";

/** The server URL tests run against, e.g. postgres://postgres@127.0.0.1:5432/test. */
export function testPostgresUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error("TEST_DATABASE=postgres needs TEST_POSTGRES_URL (postgres://user@host:port/db)");
  return url;
}

/**
 * A url for a schema of its own (see connectionSettings' `?schema=`). Its sessions commit without
 * waiting for the disk (synchronous_commit off: ~2 ms a commit here, the PostgreSQL pass's largest
 * wait); nothing of a test file outlives its run, and the tests of durability across a restart run
 * throwaway servers of their own (test/support/throwaway-postgres.ts).
 */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  u.searchParams.set("options", "-c synchronous_commit=off");
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

/**
 * Replays the template's dump (test/database-template.ts) into `schema` when it has no tables yet;
 * false when it has some (the file migrated on its own), which are left alone.
 */
export async function copyTemplateInto(schema: string, script: string): Promise<boolean> {
  return underSchemaLock(testPostgresUrl(), async (c) => {
    const { rows } = await c.query(
      "select count(*)::int as n from information_schema.tables where table_schema = $1",
      [schema],
    );
    if (rows[0].n > 0) return false;
    await c.query(script.replaceAll(TEMPLATE_SCHEMA_PLACEHOLDER, schema));
    return true;
  });
}

/** DDL under the lock migrations take, so no file's migrator reads the catalog mid-change. */
export async function changeSchemas(url: string, statements: string[]) {
  await underSchemaLock(url, async (c) => {
    for (const statement of statements) await c.query(statement);
  });
}

async function underSchemaLock<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query("select pg_advisory_lock($1)", [SCHEMA_CHANGE_LOCK]);
    return await fn(c);
  } finally {
    await c.end(); // ends the session, which releases the lock
  }
}
