import { report, restoreCommand } from "../db/backup-cli";
import { loadDotEnv } from "./dotenv";

// `npm run db:restore <file>`: puts a verified backup in place of the SQLite database, with the
// server (and any worker) stopped; refused while anything has the database open.
// PostgreSQL: pg_restore (docs/operations.md, "Backup and restore").
loadDotEnv();
report(restoreCommand(process.argv.slice(2), process.env.DATABASE_URL ?? "file:./data/app.db"));
