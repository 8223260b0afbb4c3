import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seed } from "../app/server/seed.server";
import { onPostgres } from "../test/postgres-schema";
import { createDb } from "./connection";
import { migrateToLatest } from "./migrate";

// Operators inspect, repair and script the database with the tools their system ships (the
// `sqlite3` shell, Python's sqlite3 module, Datasette, sqlite-utils), which link the system's
// SQLite, often older than the one bundled with better-sqlite3. The schema must stay readable by
// SQLite 3.37 or newer (Ubuntu 22.04; Debian 12 has 3.40): an older library parses every trigger
// and view when it opens the file, and one statement it cannot parse makes the whole file
// "malformed". CI installs `sqlite3` (.ci/run); without it the shell test says so and skips.

const file = join(tmpdir(), `dashboard-older-sqlite-${randomUUID()}.db`);
const upgraded = join(tmpdir(), `dashboard-older-sqlite-upgraded-${randomUUID()}.db`);

function found(command: string, args: string[]): boolean {
  const probe = spawnSync(command, args, { encoding: "utf8" });
  return !probe.error && probe.status === 0;
}

const SQLITE3 = found("sqlite3", ["-version"]);
const PYTHON3 = found("python3", ["-c", "import sqlite3"]);

function shell(query: string, path = file): string {
  return execFileSync("sqlite3", ["-bail", path, query], { encoding: "utf8", stdio: "pipe" }).trim();
}

/** Runs `query` with Python's sqlite3 module; one line per row, columns joined by "|". */
function python(query: string): string {
  const script = [
    "import sqlite3, sys",
    "c = sqlite3.connect(sys.argv[1])",
    "for row in c.execute(sys.argv[2]): print('|'.join(str(v) for v in row))",
    "c.commit()",
  ].join("\n");
  return execFileSync("python3", ["-c", script, file, query], { encoding: "utf8", stdio: "pipe" }).trim();
}

function tablesBy(run: (query: string) => string): string[] {
  return run("select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' order by name")
    .split("\n")
    .filter(Boolean);
}

/** `table|count` for every table, in one statement (one process). */
function countsBy(run: (query: string) => string, tables: string[]): string[] {
  return run(tables.map((table) => `select '${table}', count(*) from "${table}"`).join(" union all "))
    .split("\n")
    .filter(Boolean);
}

beforeAll(async () => {
  const db = createDb(`file:${file}`);
  try {
    await migrateToLatest(db);
    await seed(db, {
      NODE_ENV: "test",
      SUPER_ADMIN_EMAIL: "root@example.test",
      SUPER_ADMIN_PASSWORD: "correct horse battery",
    });
  } finally {
    await db.destroy();
  }
});

/**
 * A database as migrations 009, 012 and 018 left it before 022: the counter triggers in their
 * first form, `insert into stat_count as c … set n = c.n + excluded.n`, which the bundled SQLite
 * accepts and older ones cannot parse. Rewritten from today's triggers, then 022 forgotten.
 */
async function databaseBefore022(path: string) {
  const db = createDb(`file:${path}`);
  try {
    await migrateToLatest(db);
    const { rows } = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_schema where type = 'trigger' and name like 'stat_count_%'`.execute(db);
    expect(rows.length).toBeGreaterThan(0);
    for (const trigger of rows) {
      const aliased = trigger.sql
        .replaceAll("insert into stat_count (", "insert into stat_count as c (")
        .replaceAll("stat_count.n + excluded.n", "c.n + excluded.n");
      expect(aliased).not.toBe(trigger.sql);
      await sql.raw(`drop trigger "${trigger.name}"`).execute(db);
      await sql.raw(aliased).execute(db);
    }
    await sql`delete from kysely_migration where name = '022_sqlite_compatible_counters'`.execute(db);
  } finally {
    await db.destroy();
  }
}

afterAll(() => {
  for (const path of [file, upgraded])
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
});

// SQLite files of its own, whatever the pass: the PostgreSQL pass would repeat the SQLite pass's run.
describe.skipIf(onPostgres)("a migrated SQLite database opened by the system's SQLite", () => {
  it("the sqlite3 shell finds it intact and reads every table", (ctx) => {
    if (!SQLITE3) ctx.skip("the `sqlite3` shell is not installed (apt-get install sqlite3); CI installs it");
    expect(shell("pragma integrity_check")).toBe("ok");
    const tables = tablesBy(shell);
    expect(tables).toContain("stat_count");
    expect(tables).toContain("user");
    expect(countsBy(shell, tables)).toEqual(
      tables.map((table) => expect.stringMatching(`^${table}\\|\\d+$`)),
    );
  });

  it("the sqlite3 shell's writes keep the counters (the triggers run in the older SQLite too)", (ctx) => {
    if (!SQLITE3) ctx.skip("the `sqlite3` shell is not installed (apt-get install sqlite3); CI installs it");
    const total = () =>
      Number(
        shell(
          "select coalesce(sum(n), 0) from stat_count where scope = '' and day = '' and name = 'teams.total'",
        ),
      );
    const before = total();
    const now = new Date().toISOString();
    shell(
      `insert into team (id, name, description, created_at, updated_at) values ('${randomUUID()}', 'Shell team', '', '${now}', '${now}')`,
    );
    expect(total()).toBe(before + 1);
    shell("delete from team where name = 'Shell team'");
    expect(total()).toBe(before);
  });

  it("a database migrated before 022 (aliased counter triggers) is readable once migrated, and counts the same", async (ctx) => {
    if (!SQLITE3) ctx.skip("the `sqlite3` shell is not installed (apt-get install sqlite3); CI installs it");
    await databaseBefore022(upgraded);
    expect(() => shell("pragma integrity_check", upgraded)).toThrow(/malformed database schema/);
    const db = createDb(`file:${upgraded}`);
    try {
      expect(await migrateToLatest(db)).toEqual(["022_sqlite_compatible_counters"]);
    } finally {
      await db.destroy();
    }
    expect(shell("pragma integrity_check", upgraded)).toBe("ok");
    const teams = () =>
      Number(
        shell(
          "select coalesce(sum(n), 0) from stat_count where scope = '' and day = '' and name = 'teams.total'",
          upgraded,
        ),
      );
    const now = new Date().toISOString();
    shell(
      `insert into team (id, name, description, created_at, updated_at) values ('${randomUUID()}', 'Shell team', '', '${now}', '${now}')`,
      upgraded,
    );
    expect(teams()).toBe(1);
  });

  it("Python's sqlite3 module finds it intact and reads every table", (ctx) => {
    if (!PYTHON3) ctx.skip("python3 with its sqlite3 module is not installed");
    expect(python("pragma integrity_check")).toBe("ok");
    const tables = tablesBy(python);
    expect(tables).toContain("stat_count");
    expect(countsBy(python, tables)).toEqual(
      tables.map((table) => expect.stringMatching(`^${table}\\|\\d+$`)),
    );
  });
});
