import { BackupError, backupSqlite, defaultBackupPath, restoreSqlite, verifySqliteBackup } from "./backup";
import { isPostgresUrl, sqlitePath } from "./connection";

/**
 * What `npm run db:backup` and `npm run db:restore` print and exit with (scripts/db-*.ts put a
 * process around them): an operator's problem is one line, never a stack trace.
 */
export type CommandOutcome = { code: 0 | 1; out: string[]; err: string[] };

function outcome(run: () => string[], verb: "backup" | "restore"): CommandOutcome {
  try {
    return { code: 0, out: run(), err: [] };
  } catch (error) {
    const why = error instanceof BackupError ? error.message : String(error);
    return { code: 1, out: [], err: [`${verb} failed: ${why}`] };
  }
}

/** `[file]` makes a consistent copy while the server runs; `--verify file` only checks one. */
export function backupCommand(args: readonly string[], databaseUrl: string): CommandOutcome {
  return outcome(() => {
    if (args[0] === "--verify") {
      if (!args[1]) throw new BackupError("usage: npm run db:backup -- --verify <file>");
      const { migrations } = verifySqliteBackup(args[1]);
      return [`${args[1]} is a whole database of this app (${migrations} migrations)`];
    }
    if (isPostgresUrl(databaseUrl))
      throw new BackupError(
        "DATABASE_URL is PostgreSQL: back it up with pg_dump (docs/operations.md, Backup and restore)",
      );
    const database = sqlitePath(databaseUrl);
    if (database === ":memory:") throw new BackupError("an in-memory database has nothing to back up");
    const { path, migrations } = backupSqlite(database, args[0] ?? defaultBackupPath(database));
    return [`backup written and verified: ${path} (${migrations} migrations)`];
  }, "backup");
}

/** Puts a verified backup in place of the database; refused while anything has it open. */
export function restoreCommand(args: readonly string[], databaseUrl: string): CommandOutcome {
  return outcome(() => {
    const [file] = args;
    if (!file) throw new BackupError("usage: npm run db:restore <file>");
    if (isPostgresUrl(databaseUrl))
      throw new BackupError(
        "DATABASE_URL is PostgreSQL: restore it with pg_restore (docs/operations.md, Backup and restore)",
      );
    const database = sqlitePath(databaseUrl);
    if (database === ":memory:") throw new BackupError("cannot restore into an in-memory database");
    const { path, previous, migrations } = restoreSqlite(file, database);
    return [
      `restored ${file} into ${path} (${migrations} migrations)`,
      ...(previous ? [`the previous database is kept as ${previous}`] : []),
      "start the server: pending migrations (an older backup) run on start or with npm run db:migrate",
    ];
  }, "restore");
}

export function report({ code, out, err }: CommandOutcome) {
  for (const line of out) console.log(line);
  for (const line of err) console.error(line);
  process.exitCode = code;
}
