import { backupCommand, report } from "../db/backup-cli";
import { loadDotEnv } from "./dotenv";

// `npm run db:backup [file]`: a consistent copy of the SQLite database while the server runs
// (default: backups/<name>-<UTC time>.db beside the database). `npm run db:backup -- --verify file`
// checks a backup without touching anything. PostgreSQL: pg_dump (docs/operations.md, "Backup and restore").
loadDotEnv();
report(backupCommand(process.argv.slice(2), process.env.DATABASE_URL ?? "file:./data/app.db"));
