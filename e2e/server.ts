import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { productionServerArgs } from "../scripts/server-command";
import { startFakePostmark } from "../test/fake-postmark";
import { E2E_ADMIN, E2E_DB, E2E_PORT, E2E_SESSION_SECRET } from "./env";
import { E2E_MAIL_KEY, FAKE_POSTMARK_PORT } from "./mail";

// A fresh database, seeded, then the production server on it.
for (const suffix of ["", "-wal", "-shm"]) rmSync(E2E_DB + suffix, { force: true });
const port = E2E_PORT;
const env = {
  ...process.env,
  NODE_ENV: "production",
  DATABASE_URL: `file:${E2E_DB}`,
  PORT: port,
  HOST: "127.0.0.1",
  BASE_URL: `http://localhost:${port}`,
  SESSION_SECRET: E2E_SESSION_SECRET,
  SUPER_ADMIN_EMAIL: E2E_ADMIN.email,
  SUPER_ADMIN_PASSWORD: E2E_ADMIN.password,
  LOG_LEVEL: "warn",
  // The browser tests sign in often from one address.
  RATE_LIMIT_LOGIN_PER_IP: "1000",
  RATE_LIMIT_PUBLIC_FORMS_PER_IP: "1000",
  // Parallel specs start tasks as the same admin.
  TASK_MAX_OPEN_PER_USER: "100",
  // Staff start the report without choosing a duration: keep its default short here.
  TASK_DEMO_DURATION_MS: "2000",
  // Every email goes to the fake Postmark server below, never to the real provider.
  MAIL_API_URL: `http://127.0.0.1:${FAKE_POSTMARK_PORT}`,
  MAIL_API_KEY: E2E_MAIL_KEY,
  EMAIL_FROM: "E2E <no-reply@e2e.test>",
  // The single sign-on spec's identity provider listens on 127.0.0.1 (app/http/outbound.server.ts).
  OUTBOUND_ALLOW_PRIVATE: "127.0.0.0/8",
};
const fakePostmark = await startFakePostmark(FAKE_POSTMARK_PORT);
const db = createDb(env.DATABASE_URL);
await migrateToLatest(db);
await seed(db, env);
await db.destroy();

const child = spawn(process.execPath, productionServerArgs(process.env.BUILD_DIR ?? "build"), {
  env,
  stdio: "inherit",
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => fakePostmark.close().finally(() => process.exit(code ?? 0)));
