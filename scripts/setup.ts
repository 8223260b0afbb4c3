import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { describeSeed, seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { loadDotEnv } from "./dotenv";

// First run on a fresh machine: .env with generated secrets, then migrate and seed.
if (!existsSync(".env")) {
  copyFileSync(".env.example", ".env");
  const text = readFileSync(".env", "utf8")
    .replace(/^SESSION_SECRET=.*$/m, `SESSION_SECRET=${randomBytes(32).toString("hex")}`)
    .replace(/^TASK_WEBHOOK_SECRET=.*$/m, `TASK_WEBHOOK_SECRET=whsec_${randomBytes(32).toString("base64")}`);
  writeFileSync(".env", text);
  console.log("created .env from .env.example with a generated SESSION_SECRET and TASK_WEBHOOK_SECRET");
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
