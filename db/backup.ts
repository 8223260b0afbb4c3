import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
} from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { knownMigrationNames } from "./migrate";

// Backup and restore of a SQLite deployment (decision 027); PostgreSQL uses pg_dump/pg_restore.

export class BackupError extends Error {}

const HEADER = "SQLite format 3\u0000";
const MIGRATION_TABLE = "kysely_migration";

export function defaultBackupPath(databaseFile: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const name = basename(databaseFile, extname(databaseFile));
  return join(dirname(databaseFile), "backups", `${name}-${stamp}.db`);
}

/**
 * `VACUUM INTO` reads one snapshot without blocking the server's writers (decision 027); the copy is
 * verified, fsynced and renamed into place, so a file at `target` is always a whole, checked backup.
 */
export function backupSqlite(databaseFile: string, target: string): { path: string; migrations: number } {
  const source = resolve(databaseFile);
  const path = resolve(target);
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`);
  if (existsSync(path)) throw new BackupError(`${path} exists already; choose another file`);
  // A backup holds password hashes and two-factor secrets: readable by its owner alone.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const partial = `${path}.partial`;
  rmSync(partial, { force: true });
  const live = new SQLite(source, { fileMustExist: true, timeout: 5_000 });
  try {
    live.prepare("VACUUM INTO ?").run(partial);
  } finally {
    live.close();
  }
  try {
    const { migrations } = verifySqliteBackup(partial);
    chmodSync(partial, 0o600);
    fsyncFile(partial);
    renameSync(partial, path);
    fsyncFile(dirname(path));
    return { path, migrations };
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error;
  }
}

/** A migration this code does not know means a newer release, whose tables this code would misuse. */
export function verifySqliteBackup(file: string): { migrations: number } {
  const path = resolve(file);
  if (!existsSync(path)) throw new BackupError(`no file at ${path}`);
  if (!hasSqliteHeader(path)) throw new BackupError(`${path} is not an SQLite database`);
  let db: SQLite.Database;
  try {
    // Read-only: a check must not change the file (nor create -wal/-shm beside it).
    db = new SQLite(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${path} cannot be opened as an SQLite database: ${(error as Error).message}`);
  }
  try {
    let problems: string[];
    try {
      problems = (db.pragma("integrity_check") as { integrity_check: string }[]).map(
        (r) => r.integrity_check,
      );
    } catch (error) {
      throw new BackupError(`${path} is damaged: ${(error as Error).message}`);
    }
    if (problems.length !== 1 || problems[0] !== "ok")
      throw new BackupError(`${path} is damaged: ${problems.slice(0, 3).join("; ")}`);
    const table = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = ?")
      .get(MIGRATION_TABLE);
    if (!table) throw new BackupError(`${path} is not a database of this app (no ${MIGRATION_TABLE} table)`);
    const ran = (db.prepare(`select name from ${MIGRATION_TABLE}`).all() as { name: string }[]).map(
      (r) => r.name,
    );
    const unknown = ran.filter((name) => !knownMigrationNames.includes(name));
    if (unknown.length > 0)
      throw new BackupError(
        `${path} has a newer or another schema: migration ${unknown.join(", ")} is unknown to this version`,
      );
    if (ran.length === 0)
      throw new BackupError(`${path} is not a database of this app (no migration has run)`);
    return { migrations: ran.length };
  } finally {
    db.close();
  }
}

/**
 * SQLite's exclusive lock on the live file proves the server is stopped: every WAL-mode connection
 * holds a shared lock while open (decision 027). The old -wal and -shm files are removed so SQLite
 * never replays them onto the restored file.
 */
export function restoreSqlite(
  backup: string,
  databaseFile: string,
  now = new Date(),
): { path: string; previous: string | null; migrations: number } {
  const source = resolve(backup);
  const path = resolve(databaseFile);
  verifySqliteBackup(source);
  mkdirSync(dirname(path), { recursive: true });
  const lock = existsSync(path) ? lockForRestore(path) : null;
  const incoming = `${path}.restore-${process.pid}`;
  try {
    removeDatabaseFiles(incoming);
    // Copied through SQLite, not byte for byte, so a copy left in WAL mode arrives whole.
    const reader = new SQLite(source, { readonly: true, fileMustExist: true });
    try {
      reader.prepare("VACUUM INTO ?").run(incoming);
    } finally {
      reader.close();
    }
    const { migrations } = verifySqliteBackup(incoming);
    fsyncFile(incoming);
    let previous: string | null = null;
    if (lock) {
      previous = defaultBackupPath(path, now).replace(/(-\d{8}T\d{6}Z\.db)$/, "-before-restore$1");
      mkdirSync(dirname(previous), { recursive: true });
      linkSync(path, previous);
    }
    renameSync(incoming, path);
    for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
    fsyncFile(dirname(path));
    return { path, previous, migrations };
  } catch (error) {
    removeDatabaseFiles(incoming);
    throw error;
  } finally {
    lock?.close();
  }
}

/** `locking_mode = EXCLUSIVE` keeps the lock, so no server opens the file until it is replaced. */
function lockForRestore(path: string): SQLite.Database {
  const db = new SQLite(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
    db.pragma("wal_checkpoint(TRUNCATE)");
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY"))
      throw new BackupError(
        `the database ${path} is in use (the server, a worker or another process has it open); stop it before restoring`,
      );
    throw error;
  }
}

function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(HEADER.length);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return read === buffer.length && buffer.toString("latin1") === HEADER;
  } finally {
    closeSync(fd);
  }
}

/** Flushes writes to disk before the rename that publishes the file. */
function fsyncFile(path: string) {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function removeDatabaseFiles(path: string) {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
}
