import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { loadDotEnv } from "./dotenv";

loadDotEnv();
const db = createDb(process.env.DATABASE_URL ?? "file:./data/app.db");
try {
  const applied = await migrateToLatest(db);
  console.log(applied.length ? `migrations applied: ${applied.join(", ")}` : "database is up to date");
} finally {
  await db.destroy();
}
