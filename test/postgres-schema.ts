import { randomBytes } from "node:crypto";
import pg from "pg";

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
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  process.env.DATABASE_URL = withSchema(url, schema);
  return {
    schema,
    url: process.env.DATABASE_URL,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        // The task queue keeps its tables beside the app's (app/tasks/queue-runner.server.ts).
        await c.query(`drop schema if exists ${schema}_worker cascade`);
        await c.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await c.end();
      }
    },
  };
}
