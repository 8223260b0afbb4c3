/**
 * vitest globalSetup: migrates and seeds ONE database per run and project, which every test file's
 * setupDatabase() (test/helpers.ts) copies instead of running the migrations and the seed itself:
 * SQLite, a file copied before the file's database is opened; PostgreSQL, a schema dumped once
 * (pg_dump) and replayed into the file's own schema (test/postgres-schema.ts). Test files that
 * migrate or seed on their own (the migration and seed tests) still start from an empty database.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import type { TestProject } from "vitest/node";
import { hashPassword } from "../app/auth/password.server";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { changeSchemas, TEMPLATE_SCHEMA_PLACEHOLDER, testPostgresUrl, withSchema } from "./postgres-schema";

export const PASSWORD = "correct horse battery";

/** What every test database is seeded with (the super admin signs in with PASSWORD). */
export const SEED_ENV = {
  NODE_ENV: "test",
  SUPER_ADMIN_EMAIL: "root@example.test",
  SUPER_ADMIN_PASSWORD: PASSWORD,
};

export type DatabaseTemplate =
  | { engine: "sqlite"; file: string; passwordHash: string }
  | { engine: "postgres"; script: string | null; passwordHash: string };

declare module "vitest" {
  export interface ProvidedContext {
    databaseTemplate: DatabaseTemplate;
  }
}

async function migratedAndSeeded(databaseUrl: string) {
  const db = createDb(databaseUrl);
  try {
    await migrateToLatest(db);
    await seed(db, SEED_ENV);
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

async function sqliteTemplate(passwordHash: string): Promise<[DatabaseTemplate, () => void]> {
  const file = join(tmpdir(), `dashboard-template-${randomBytes(6).toString("hex")}.db`);
  const db = await migratedAndSeeded(`file:${file}`);
  // One self-contained file to copy: the log folded in, and no WAL left to go with it.
  await sql`pragma wal_checkpoint(truncate)`.execute(db);
  await sql`pragma journal_mode = delete`.execute(db);
  await db.destroy();
  const remove = () => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  };
  return [{ engine: "sqlite", file, passwordHash }, remove];
}

/**
 * The seeded schema as SQL for one `query()`: pg_dump's text with the schema's name replaced.
 * Without pg_dump every file migrates and seeds as before (script: null).
 */
async function postgresTemplate(passwordHash: string): Promise<[DatabaseTemplate, () => void]> {
  const base = testPostgresUrl();
  const schema = `tmpl_${randomBytes(6).toString("hex")}`;
  await changeSchemas(base, [`create schema ${schema}`]);
  try {
    await (await migratedAndSeeded(withSchema(base, schema))).destroy();
    // The tables, indexes and triggers first, then the rows, in the order the migrations and the
    // seed wrote them: an index built on a table with rows records its size (pg_class.reltuples),
    // and a table a test then grows would be planned as if it still held a row or two (a never
    // counted table is estimated from its pages). The counters (stat_count) are left to the
    // triggers, which count the rows again as they arrive.
    const dump = (...args: string[]) => pgDump(base, schema, args);
    const stdout = await Promise.all([
      dump("--schema-only"),
      dump("--data-only", "--inserts", `--exclude-table-data=${schema}.stat_count`),
    ]).then(
      (parts) => parts.join("\n"),
      (error: Error) => {
        console.warn(`pg_dump failed (${error.message.split("\n")[0]}): every test file migrates and seeds`);
        return null;
      },
    );
    return [{ engine: "postgres", script: stdout && replayable(stdout, schema), passwordHash }, () => {}];
  } finally {
    await changeSchemas(base, [`drop schema if exists ${schema} cascade`]);
  }
}

async function pgDump(url: string, schema: string, args: string[]): Promise<string> {
  const options = { maxBuffer: 64 * 1024 * 1024 };
  const command = [...args, "--no-owner", "--no-privileges", "--schema", schema, url];
  return (await promisify(execFile)("pg_dump", command, options)).stdout;
}

/**
 * pg_dump's statements for the file's own schema (run on a connection of their own, so its session
 * settings go with it): without psql's meta-commands and the schema's creation (test/setup-db.ts
 * has made it), the template's name a placeholder.
 */
function replayable(dump: string, schema: string): string {
  const kept = dump
    .split("\n")
    .filter((line) => !line.startsWith("\\") && line !== `CREATE SCHEMA ${schema};`)
    .join("\n");
  // The name is random, so each occurrence is the schema: qualified names, quoted ones in the
  // counters' trigger functions (db/migrations/012_maintained_counts.ts).
  return kept.replaceAll(schema, TEMPLATE_SCHEMA_PLACEHOLDER);
}

export default async function setup(project: TestProject) {
  const passwordHash = await hashPassword(PASSWORD);
  const engine = project.config.env?.TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
  const [template, teardown] =
    engine === "postgres" ? await postgresTemplate(passwordHash) : await sqliteTemplate(passwordHash);
  project.provide("databaseTemplate", template);
  return teardown;
}
