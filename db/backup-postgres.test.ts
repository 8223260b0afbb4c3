import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Logger, runMigrations } from "graphile-worker";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, postgresPoolOf } from "./connection";
import { migrateToLatest } from "./migrate";

// The PostgreSQL backup docs/operations.md documents: pg_dump of the app's schema and its queue's
// (graphile-worker's, app/tasks/queue-runner.server.ts: `graphile_worker`, or NAME_worker beside
// `?schema=NAME`) into one file, pg_restore into a new database, the rows there. Runs whenever a
// PostgreSQL answers at TEST_POSTGRES_URL, in the PostgreSQL pass only (the SQLite pass ran it
// a second time, identically), on two throwaway databases dropped afterwards.
const run = promisify(execFile);
const base = process.env.TEST_POSTGRES_URL;
const inPostgresPass = Boolean(base) && process.env.TEST_DATABASE === "postgres";
const suffix = randomBytes(5).toString("hex");
const source = `backup_src_${suffix}`;
const whole = `backup_whole_${suffix}`;
const schemas = `backup_schemas_${suffix}`;
let dir: string;
const quiet = new Logger(() => () => {});

function urlOf(database: string): string {
  const url = new URL(base!);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function query(database: string, text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: urlOf(database) });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** The app migrated at `url` with 250 audit rows and one queued job in `queueSchema`. */
async function deployment(url: string, queueSchema: string) {
  const db = createDb(url);
  try {
    await migrateToLatest(db);
    await runMigrations({ pgPool: postgresPoolOf(db)!, schema: queueSchema, logger: quiet });
    await db
      .insertInto("audit_log")
      .values(
        Array.from({ length: 250 }, (_, i) => ({
          id: `row-${i}`,
          action: "backup.pg",
          created_at: new Date().toISOString(),
        })),
      )
      .execute();
    await postgresPoolOf(db)!.query(
      `select ${queueSchema}.add_job('run_task', json_build_object('taskId', 'task-1'::text))`,
    );
  } finally {
    await db.destroy();
  }
}

/** The rows, the queued job, and the app running on the copy: nothing to migrate, a query works. */
async function expectRestored(database: string, appSchema: string, queueSchema: string) {
  expect(
    await query(database, `select count(*)::int as n from ${appSchema}.audit_log where action = 'backup.pg'`),
  ).toEqual([{ n: 250 }]);
  expect(await query(database, `select task_identifier from ${queueSchema}.jobs`)).toEqual([
    { task_identifier: "run_task" },
  ]);
  const url = new URL(urlOf(database));
  if (appSchema !== "public") url.searchParams.set("schema", appSchema);
  const db = createDb(url.toString());
  try {
    expect(await migrateToLatest(db)).toEqual([]);
    const row = await db.selectFrom("audit_log").select("id").where("id", "=", "row-7").executeTakeFirst();
    expect(row?.id).toBe("row-7");
  } finally {
    await db.destroy();
  }
}

describe.skipIf(!inPostgresPass)("backing up and restoring PostgreSQL with pg_dump and pg_restore", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pg-backup-test-"));
    await admin(async (c) => {
      for (const name of [source, whole, schemas]) await c.query(`create database ${name}`);
    });
    // Both layouts docs/operations.md describes: without ?schema= (the app in public, its queue in
    // graphile_worker) and with ?schema=dashboard (the queue in dashboard_worker).
    await deployment(urlOf(source), "graphile_worker");
    await deployment(`${urlOf(source)}?schema=dashboard`, "dashboard_worker");
  }, 60_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await admin(async (c) => {
      for (const name of [source, whole, schemas])
        await c.query(`drop database if exists ${name} with (force)`);
    });
  });

  it("restores a whole database's dump into a new database", async () => {
    const file = join(dir, "whole.dump");
    await run("pg_dump", ["--format=custom", `--file=${file}`, urlOf(source)]);
    // What docs/operations.md says to check before trusting a dump: pg_restore reads its table of contents.
    const { stdout: contents } = await run("pg_restore", ["--list", file]);
    expect(contents).toContain("TABLE DATA public audit_log");
    expect(contents).toContain("TABLE DATA graphile_worker _private_jobs");

    await run("pg_restore", ["--exit-on-error", "--no-owner", `--dbname=${urlOf(whole)}`, file]);
    await expectRestored(whole, "public", "graphile_worker");
  }, 60_000);

  it("restores the dump of the app's schema and its queue's schema into a new database", async () => {
    const file = join(dir, "dashboard.dump");
    await run("pg_dump", [
      "--format=custom",
      "--schema=dashboard",
      "--schema=dashboard_worker",
      `--file=${file}`,
      urlOf(source),
    ]);
    expect(statSync(file).size).toBeGreaterThan(0);
    // A schema's dump leaves out extensions; the search indexes need pg_trgm first.
    await query(schemas, "create extension if not exists pg_trgm");
    await run("pg_restore", ["--exit-on-error", "--no-owner", `--dbname=${urlOf(schemas)}`, file]);
    await expectRestored(schemas, "dashboard", "dashboard_worker");
    // Only the two schemas came along.
    expect(await query(schemas, "select to_regclass('public.audit_log') as t")).toEqual([{ t: null }]);
  }, 60_000);
});
