import { describeSeed, SeedConfigError, seed } from "../app/server/seed.server";
import { createDb, describeDbError } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { loadDotEnv } from "./dotenv";

loadDotEnv();
const db = createDb(process.env.DATABASE_URL ?? "file:./data/app.db");
try {
  await migrateToLatest(db);
  const report = await seed(db, process.env);
  console.log(describeSeed(report));
  if (report.generatedPassword) {
    console.log(
      `\nGenerated password for ${report.inserted.superAdmin} (shown once, set SUPER_ADMIN_PASSWORD to choose one):\n  ${report.generatedPassword}\n`,
    );
  }
} catch (error) {
  if (error instanceof SeedConfigError) {
    console.error(`seed failed: ${error.message}`);
    process.exitCode = 1;
  } else {
    console.error(`seed failed: ${describeDbError(error)}`);
    process.exitCode = 1;
  }
} finally {
  await db.destroy();
}
