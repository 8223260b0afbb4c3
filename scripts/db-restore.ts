import { BackupError, restoreSqlite } from "../db/backup";
import { isPostgresUrl, sqlitePath } from "../db/connection";
import { loadDotEnv } from "./dotenv";

// `npm run db:restore <file>`: puts a verified backup in place of the SQLite database, with the
// server (and any worker) stopped; refused while anything has the database open.
// PostgreSQL: pg_restore (docs/operations.md, "Backup and restore").
loadDotEnv();
const [file] = process.argv.slice(2);
const databaseUrl = process.env.DATABASE_URL ?? "file:./data/app.db";

try {
  if (!file) throw new BackupError("usage: npm run db:restore <file>");
  if (isPostgresUrl(databaseUrl))
    throw new BackupError(
      "DATABASE_URL is PostgreSQL: restore it with pg_restore (docs/operations.md, Backup and restore)",
    );
  const database = sqlitePath(databaseUrl);
  if (database === ":memory:") throw new BackupError("cannot restore into an in-memory database");
  const { path, previous, migrations } = restoreSqlite(file, database);
  console.log(`restored ${file} into ${path} (${migrations} migrations)`);
  if (previous) console.log(`the previous database is kept as ${previous}`);
  console.log(
    "start the server: pending migrations (an older backup) run on start or with npm run db:migrate",
  );
} catch (error) {
  console.error(`restore failed: ${error instanceof BackupError ? error.message : String(error)}`);
  process.exitCode = 1;
}
