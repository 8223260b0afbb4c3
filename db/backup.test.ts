import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../app/db.server";
import { setupDatabase } from "../test/helpers";
import { onPostgres } from "../test/postgres-schema";
import { BackupError, backupSqlite, defaultBackupPath, restoreSqlite, verifySqliteBackup } from "./backup";
import { backupCommand, restoreCommand } from "./backup-cli";
import { createDb, sqlitePath } from "./connection";
import { knownMigrationNames, migrateToLatest } from "./migrate";

// `npm run db:backup` / `npm run db:restore` (db/backup.ts, scripts/db-*.ts): an online copy
// while another process keeps writing, restored into a fresh directory the app then runs on, and
// every file a restore must refuse. SQLite only; PostgreSQL's round trip is db/backup-postgres.test.ts.
const run = promisify(execFile);
const TSX = resolve("node_modules/.bin/tsx");
const dir = mkdtempSync(join(tmpdir(), "backup-test-"));
const live = () => sqlitePath(process.env.DATABASE_URL!);

type Script = "db-backup" | "db-restore";

/** One of the two commands, in this process: what it prints and its exit code (db/backup-cli.ts). */
async function command(script: Script, args: string[], database = live()) {
  const run = script === "db-backup" ? backupCommand : restoreCommand;
  const { code, out, err } = run(args, `file:${database}`);
  return { code, output: [...out, ...err].join("\n") };
}

/** The command as an operator runs it, in a process of its own (the script's wiring, or a second process). */
async function spawned(script: Script, args: string[], database = live()) {
  try {
    const { stdout, stderr } = await run(TSX, [`scripts/${script}.ts`, ...args], {
      env: { ...process.env, DATABASE_URL: `file:${database}` },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/** Another process writing one audit row per transaction into `file` until killed. */
function startWriter(file: string): ChildProcess {
  const script = `
    const SQLite = require("better-sqlite3");
    const db = new SQLite(process.argv[1], { timeout: 5000 });
    db.pragma("journal_mode = WAL");
    const insert = db.prepare("insert into audit_log (id, action, created_at) values (?, 'backup.writer', ?)");
    let n = 0;
    const tick = () => {
      for (let i = 0; i < 20; i++) insert.run(require("node:crypto").randomUUID(), new Date().toISOString());
      if ((n += 20) === 20) console.log("writing");
      setImmediate(tick);
    };
    tick();`;
  return spawn(process.execPath, ["-e", script, file], { stdio: ["ignore", "pipe", "inherit"] });
}

function count(file: string, action = "backup.writer"): number {
  const conn = new SQLite(file, { readonly: true });
  try {
    return (conn.prepare("select count(*) as n from audit_log where action = ?").get(action) as { n: number })
      .n;
  } finally {
    conn.close();
  }
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on("error", fail);
  });
}

describe.skipIf(onPostgres)("backing up and restoring a SQLite database", () => {
  let backup: string;
  let backedUpRows: number;

  beforeAll(async () => {
    await setupDatabase();
    // Enough rows that copying takes a while, so the writer really writes during the backup.
    await sql`insert into audit_log (id, action, details, created_at)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
      select 'bulk-' || i, 'backup.bulk', printf('%.200c', 'x'), '2026-01-01T00:00:00.000Z' from n`.execute(
      db(),
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("copies the live database while another process keeps writing to it", async () => {
    const writer = startWriter(live());
    try {
      await new Promise<void>((started) => writer.stdout!.once("data", () => started()));
      const before = count(live());
      backup = join(dir, "online.db");
      const result = await command("db-backup", [backup]);
      const after = count(live());
      expect(result.output).toContain("backup written and verified");
      expect(result.code).toBe(0);
      backedUpRows = count(backup);
      // A snapshot from some moment during the command: everything committed before it started,
      // nothing the writer had not yet written when it ended, and the writer never stopped.
      expect(backedUpRows).toBeGreaterThanOrEqual(before);
      expect(backedUpRows).toBeLessThanOrEqual(after);
      expect(after).toBeGreaterThan(before);
      expect(count(backup, "backup.bulk")).toBe(20000);
      expect(existsSync(`${backup}.partial`)).toBe(false);
    } finally {
      writer.kill("SIGKILL");
    }
    const verified = await spawned("db-backup", ["--verify", backup]);
    expect(verified.code).toBe(0);
    expect(verified.output).toContain(`(${knownMigrationNames.length} migrations)`);
  }, 60_000);

  it("names a backup by time under backups/ beside the database, and never overwrites one", () => {
    expect(defaultBackupPath("/srv/data/app.db", new Date("2026-11-23T08:01:02.345Z"))).toBe(
      "/srv/data/backups/app-20261123T080102Z.db",
    );
    expect(() => backupSqlite(live(), backup)).toThrow(/exists already/);
    // It holds password hashes and two-factor secrets: its owner's alone.
    expect(statSync(backup).mode & 0o777).toBe(0o600);
  });

  it("restores into a fresh directory, and the app runs on it", async () => {
    const target = join(dir, "fresh", "app.db");
    const result = await command("db-restore", [backup], target);
    expect(result.output).toContain("restored");
    expect(result.code).toBe(0);
    expect(count(target)).toBe(backedUpRows);

    const restored = createDb(`file:${target}`);
    try {
      expect(await migrateToLatest(restored)).toEqual([]); // the schema is this code's, nothing to apply
      const admin = await restored
        .selectFrom("user")
        .select("email")
        .where("email", "=", "root@example.test")
        .executeTakeFirst();
      expect(admin?.email).toBe("root@example.test");
    } finally {
      await restored.destroy();
    }
  });

  // The compiled server (`npm run build`), when the run names a fresh build (see production-server.test.ts).
  const BUILD_DIR = process.env.PRODUCTION_BUILD_DIR ?? process.env.TWO_INSTANCE_BUILD_DIR ?? "";
  it.skipIf(!BUILD_DIR || !existsSync(resolve(BUILD_DIR, "server.js")))(
    "starts the production server on the restored database",
    async () => {
      const target = join(dir, "served", "app.db");
      restoreSqlite(backup, target);
      const port = await freePort();
      const output: string[] = [];
      const server = spawn(process.execPath, [resolve(BUILD_DIR, "server.js")], {
        env: {
          ...process.env,
          NODE_ENV: "production",
          BUILD_DIR,
          DATABASE_URL: `file:${target}`,
          PORT: String(port),
          HOST: "127.0.0.1",
          BASE_URL: `http://127.0.0.1:${port}`,
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      server.stdout!.on("data", (d) => output.push(String(d)));
      server.stderr!.on("data", (d) => output.push(String(d)));
      try {
        await vi.waitFor(
          async () => {
            if (server.exitCode !== null) throw new Error(`the server exited: ${output.join("")}`);
            expect((await fetch(`http://127.0.0.1:${port}/healthz`)).ok).toBe(true);
          },
          { timeout: 30_000, interval: 200 },
        );
        expect((await fetch(`http://127.0.0.1:${port}/login`)).status).toBe(200);
        // While it runs, a restore over its database is refused.
        const refused = await spawned("db-restore", [backup], target);
        expect(refused.code).toBe(1);
        expect(refused.output).toContain("is in use");
      } finally {
        server.kill("SIGKILL");
      }
    },
    60_000,
  );

  it("refuses to restore over a database another process has open, and leaves it as it was", async () => {
    // This test process has the live database open through the app's db(), as a running server would.
    const rowsBefore = count(live(), "backup.bulk");
    await sql`delete from audit_log where action = 'backup.bulk'`.execute(db());
    const result = await spawned("db-restore", [backup]);
    expect(result.code).toBe(1);
    expect(result.output).toContain("is in use");
    expect(result.output).toContain("stop it before restoring");
    expect(count(live(), "backup.bulk")).toBe(0);
    expect(rowsBefore).toBe(20000);
    expect(existsSync(`${live()}.restore-${process.pid}`)).toBe(false);
  });

  it("refuses a file that is not an SQLite database, and leaves the target alone", async () => {
    const text = join(dir, "notes.txt");
    writeFileSync(text, "these are not the rows you are looking for\n".repeat(10));
    const target = join(dir, "untouched", "app.db");
    const result = await command("db-restore", [text], target);
    expect(result.code).toBe(1);
    expect(result.output).toContain("is not an SQLite database");
    expect(existsSync(target)).toBe(false);

    const verified = await command("db-backup", ["--verify", text]);
    expect(verified.code).toBe(1);
    expect(verified.output).toContain("is not an SQLite database");
  });

  it("refuses a damaged copy (integrity check)", () => {
    const damaged = join(dir, "damaged.db");
    const bytes = readFileSync(backup);
    // The header intact, the pages after the first few gone: SQLite opens it, the check does not pass.
    writeFileSync(damaged, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(() => verifySqliteBackup(damaged)).toThrow(BackupError);
    expect(() => verifySqliteBackup(damaged)).toThrow(/damaged|malformed/);
    expect(() => restoreSqlite(damaged, join(dir, "untouched2", "app.db"))).toThrow(BackupError);
    expect(existsSync(join(dir, "untouched2", "app.db"))).toBe(false);
  });

  it("refuses a database of another schema", () => {
    const other = join(dir, "other.db");
    const conn = new SQLite(other);
    conn.exec("create table invoice (id integer primary key, total real)");
    conn.close();
    expect(() => verifySqliteBackup(other)).toThrow(/not a database of this app/);

    // Another Kysely app: a migration table, but not our migrations.
    const kyselyApp = join(dir, "kysely-app.db");
    const app = new SQLite(kyselyApp);
    app.exec(`create table kysely_migration (name varchar(255) not null primary key, timestamp varchar(255) not null);
      insert into kysely_migration values ('001_invoices', '2026-01-01T00:00:00.000Z');`);
    app.close();
    expect(() => restoreSqlite(kyselyApp, join(dir, "untouched3", "app.db"))).toThrow(
      /unknown to this version/,
    );
  });

  it("refuses a database of a newer schema (a migration this code does not know)", async () => {
    const newer = join(dir, "newer.db");
    copyFileSync(backup, newer);
    const conn = new SQLite(newer);
    conn
      .prepare("insert into kysely_migration (name, timestamp) values (?, ?)")
      .run("999_from_a_newer_release", new Date().toISOString());
    conn.close();
    const target = join(dir, "fresh", "app.db"); // restored above: stays as it was
    const before = count(target);
    const result = await command("db-restore", [newer], target);
    expect(result.code).toBe(1);
    expect(result.output).toContain("newer or another schema: migration 999_from_a_newer_release");
    expect(count(target)).toBe(before);
  });

  it("keeps the database it replaces, and removes the old write-ahead log", () => {
    const target = join(dir, `replace-${randomUUID()}`, "app.db");
    restoreSqlite(backup, target);
    // A -wal left by the previous database would be replayed onto the restored file.
    const conn = new SQLite(target);
    conn.pragma("journal_mode = WAL");
    conn.prepare("insert into audit_log (id, action, created_at) values ('old', 'backup.old', 'x')").run();
    conn.close();
    writeFileSync(`${target}-wal`, "stale");
    const { previous } = restoreSqlite(backup, target, new Date("2026-11-23T09:00:00Z"));
    expect(previous).toMatch(/backups\/app-before-restore-20261123T090000Z\.db$/);
    expect(count(previous!, "backup.old")).toBe(1);
    expect(existsSync(`${target}-wal`)).toBe(false);
    expect(count(target, "backup.old")).toBe(0);
    expect(verifySqliteBackup(target).migrations).toBe(knownMigrationNames.length);
  });
});
