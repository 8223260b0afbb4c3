import { createDb, describeDbError } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { loadDotEnv } from "./dotenv";

loadDotEnv();
const db = createDb(process.env.DATABASE_URL ?? "file:./data/app.db");
try {
  const applied = await migrateToLatest(db);
  console.log(applied.length ? `migrations applied: ${applied.join(", ")}` : "database is up to date");
} catch (error) {
  // An operator's problem (database down, wrong URL, no rights): one line, not a stack trace.
  console.error(`migrate failed: ${describeDbError(error)}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
