import { BackupError, backupSqlite, defaultBackupPath, verifySqliteBackup } from "../db/backup";
import { isPostgresUrl, sqlitePath } from "../db/connection";
import { loadDotEnv } from "./dotenv";

// `npm run db:backup [file]`: a consistent copy of the SQLite database while the server runs
// (default: backups/<name>-<UTC time>.db beside the database). `npm run db:backup -- --verify file`
// checks a backup without touching anything. PostgreSQL: pg_dump (docs/operations.md, "Backup and restore").
loadDotEnv();
const args = process.argv.slice(2);
const databaseUrl = process.env.DATABASE_URL ?? "file:./data/app.db";

try {
  if (args[0] === "--verify") {
    if (!args[1]) throw new BackupError("usage: npm run db:backup -- --verify <file>");
    const { migrations } = verifySqliteBackup(args[1]);
    console.log(`${args[1]} is a whole database of this app (${migrations} migrations)`);
  } else {
    if (isPostgresUrl(databaseUrl))
      throw new BackupError(
        "DATABASE_URL is PostgreSQL: back it up with pg_dump (docs/operations.md, Backup and restore)",
      );
    const database = sqlitePath(databaseUrl);
    if (database === ":memory:") throw new BackupError("an in-memory database has nothing to back up");
    const { path, migrations } = backupSqlite(database, args[0] ?? defaultBackupPath(database));
    console.log(`backup written and verified: ${path} (${migrations} migrations)`);
  }
} catch (error) {
  // An operator's problem: one line, not a stack trace.
  console.error(`backup failed: ${error instanceof BackupError ? error.message : String(error)}`);
  process.exitCode = 1;
}
