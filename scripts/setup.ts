import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { describeSeed, seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { envFilePath, loadDotEnv } from "./dotenv";

// First run on a fresh machine: .env (or ENV_FILE) with generated secrets, then migrate and seed.
const envFile = envFilePath();
if (!existsSync(envFile)) {
  copyFileSync(".env.example", envFile);
  const text = readFileSync(envFile, "utf8")
    .replace(/^SESSION_SECRET=.*$/m, `SESSION_SECRET=${randomBytes(32).toString("hex")}`)
    .replace(/^TASK_WEBHOOK_SECRET=.*$/m, `TASK_WEBHOOK_SECRET=whsec_${randomBytes(32).toString("base64")}`);
  writeFileSync(envFile, text);
  console.log(`created ${envFile} from .env.example with a generated SESSION_SECRET and TASK_WEBHOOK_SECRET`);
}
loadDotEnv();

const db = createDb(process.env.DATABASE_URL ?? "file:./data/app.db");
try {
  await migrateToLatest(db);
  const report = await seed(db, process.env);
  console.log(describeSeed(report));
  if (report.generatedPassword) {
    console.log(
      `\nSign in as ${report.inserted.superAdmin} with password: ${report.generatedPassword}\n(shown once)\n`,
    );
  }
} finally {
  await db.destroy();
}
