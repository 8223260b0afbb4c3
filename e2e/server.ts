import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { productionServerArgs } from "../scripts/server-command";
import { startFakePostmark } from "../test/fake-postmark";
import { E2E_ADMIN, E2E_BASE_URL, E2E_DB, E2E_PORT, E2E_SESSION_SECRET } from "./env";
import { E2E_MAIL_KEY, FAKE_POSTMARK_PORT } from "./mail";

// The server must not outlive the worker that started it, even one killed without a chance to clean
// up: it exits when its stdin (a pipe from the worker) closes.
const EXIT_WITH_PARENT = `data:text/javascript,process.stdin.on("end",()=>process.exit(0)).resume()`;

/**
 * This worker's server (e2e/env.ts): a fresh database, migrated and seeded, the fake Postmark beside
 * it, then the production build on it. Resolves once /healthz answers; returns how to stop both.
 */
export async function startE2eServer(buildDir: string): Promise<() => Promise<void>> {
  // Another run on these ports would answer the health check in this server's place.
  if (await answers(E2E_BASE_URL))
    throw new Error(`${E2E_BASE_URL} is taken (another e2e run?): choose another E2E_PORT`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(E2E_DB + suffix, { force: true });
  const env = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: `file:${E2E_DB}`,
    PORT: E2E_PORT,
    HOST: "127.0.0.1",
    BASE_URL: E2E_BASE_URL,
    SESSION_SECRET: E2E_SESSION_SECRET,
    SUPER_ADMIN_EMAIL: E2E_ADMIN.email,
    SUPER_ADMIN_PASSWORD: E2E_ADMIN.password,
    LOG_LEVEL: "warn",
    // No test reaches the internet's range service; the check is tested in Vitest against a fake.
    PASSWORD_BREACH_CHECK: "off",
    // No balancer in front to drain away from: stop at once at the end of the run.
    DRAIN_MS: "0",
    // The browser tests sign in often from one address.
    RATE_LIMIT_LOGIN_PER_IP: "1000",
    RATE_LIMIT_PUBLIC_FORMS_PER_IP: "1000",
    TASK_MAX_OPEN_PER_USER: "100",
    // One server serves every spec of its worker: tasks other specs left running (reports, retried
    // failures) must not hold a spec's export in "Waiting" (seen for 20 s in CI at the default 4).
    TASK_CONCURRENCY: "16",
    // Staff start the report without choosing a duration: short here, yet long enough that a test
    // sees it running on a busy machine.
    TASK_DEMO_DURATION_MS: "4000",
    // Every email goes to the fake Postmark server below, never to the real provider.
    MAIL_API_URL: `http://127.0.0.1:${FAKE_POSTMARK_PORT}`,
    MAIL_API_KEY: E2E_MAIL_KEY,
    EMAIL_FROM: "E2E <no-reply@e2e.test>",
    // Production closes public registration unless set; the specs register (a test that closes it
    // in Settings puts it back).
    REGISTRATION: "open",
    // The single sign-on spec's identity provider listens on 127.0.0.1 (app/http/outbound.server.ts).
    OUTBOUND_ALLOW_PRIVATE: "127.0.0.0/8",
  };
  const fakePostmark = await startFakePostmark(FAKE_POSTMARK_PORT);
  const db = createDb(env.DATABASE_URL);
  try {
    await migrateToLatest(db);
    await seed(db, env);
  } finally {
    await db.destroy();
  }

  // productionServerArgs() starts with node's own options, so one more goes first.
  const child = spawn(process.execPath, ["--import", EXIT_WITH_PARENT, ...productionServerArgs(buildDir)], {
    env,
    stdio: ["pipe", "ignore", "inherit"],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await fakePostmark.close();
  };
  try {
    await healthy(child);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}

async function answers(url: string) {
  try {
    await fetch(`${url}/healthz`);
    return true;
  } catch {
    return false;
  }
}

async function healthy(child: ChildProcess) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the e2e server exited with ${child.exitCode}`);
    if (await answers(E2E_BASE_URL)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the e2e server did not answer ${E2E_BASE_URL}/healthz within 60 s`);
}
