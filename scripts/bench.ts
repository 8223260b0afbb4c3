// npm run bench: drives the production build (it builds nothing: run `npm run build` first) on a
// fresh, seeded database over loopback, and prints each figure beside a bare resource route of the
// same server in the same run. Figures depend on the machine; compare ratios, not absolutes.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import { createCookie } from "react-router";
import { Webhook } from "standardwebhooks";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { sessionFor, usersWithSessions } from "./bench/fixtures";
import { benchSchema } from "./bench/postgres";
import { openMany, openSse } from "./bench/sse-client";

const buildDir = process.env.BUILD_DIR ?? "build";
const port = Number(process.env.BENCH_PORT ?? 3290);
const duration = Number(process.env.BENCH_SECONDS ?? 8);
const sseCounts = (process.env.BENCH_SSE ?? "1000,5000").split(",").map(Number);
const base = `http://127.0.0.1:${port}`;

if (!existsSync(`${buildDir}/server/index.js`)) {
  console.error(`No production build in ./${buildDir}: run \`npm run build\` first (or set BUILD_DIR).`);
  process.exit(1);
}

const dbFile = join(tmpdir(), `bench-${randomUUID()}.db`);
const pgSchema = process.env.BENCH_DATABASE_URL
  ? await benchSchema(process.env.BENCH_DATABASE_URL)
  : undefined;
const secret = randomBytes(32).toString("hex");
const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
const env = {
  ...process.env,
  NODE_ENV: "production",
  BUILD_DIR: buildDir,
  DATABASE_URL: pgSchema?.url ?? `file:${dbFile}`,
  PORT: String(port),
  HOST: "127.0.0.1",
  BASE_URL: base,
  SESSION_SECRET: secret,
  TASK_WEBHOOK_SECRET: webhookSecret,
  SUPER_ADMIN_EMAIL: "bench@bench.test",
  SUPER_ADMIN_PASSWORD: "bench-password-123",
  LOG_LEVEL: "warn",
  // The load test posts tasks as one user as fast as it can; it measures the route, not the cap.
  TASK_MAX_OPEN_PER_USER: "100000",
};

// Fresh database: migrate and seed (timed), plus users with sessions for the SSE figures.
const db = createDb(env.DATABASE_URL);
let seedMs = 0;
let owner: { id: string; cookie: string };
let others: { id: string; cookie: string }[];
try {
  await migrateToLatest(db);
  const t0 = performance.now();
  await seed(db, env);
  seedMs = performance.now() - t0;
  const admin = await db
    .selectFrom("user")
    .select("id")
    .where("email", "=", env.SUPER_ADMIN_EMAIL)
    .executeTakeFirstOrThrow();
  const cookie = createCookie("__session", { secrets: [secret], path: "/" });
  owner = { id: admin.id, cookie: await sessionFor(db, admin.id, cookie) };
  // Ten streams per user at most (app/events/stream.server.ts), so enough users to hold them all.
  others = await usersWithSessions(
    db,
    Math.max(100, Math.ceil(Math.max(...sseCounts) / 10)),
    secret,
    "Other",
  );
} finally {
  await db.destroy();
}

const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
  env,
  stdio: ["ignore", "ignore", "inherit"],
});
const cleanup = () => {
  server.kill("SIGTERM");
  for (const suffix of ["", "-wal", "-shm"]) rmSync(dbFile + suffix, { force: true });
};
process.on("exit", cleanup);
process.on("SIGINT", () => process.exit(130));

async function waitForHealth() {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server did not become healthy");
}

function rssKb(): number {
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(9);
function line(name: string, r: Result, bare?: Result) {
  const ratio = bare ? `${(r.requests.average / bare.requests.average).toFixed(2)}x bare` : "baseline";
  const bad = r.non2xx + r.errors + r.timeouts;
  console.log(
    `${name.padEnd(34)} ${fmt(r.requests.average, 0)} req/s   p50 ${fmt(r.latency.p50)} ms   p99 ${fmt(r.latency.p99)} ms   ${ratio}${bad ? `   (${bad} non-2xx/errors)` : ""}`,
  );
}

const load = (path: string, extra: Partial<Parameters<typeof autocannon>[0]> = {}) =>
  autocannon({ url: base + path, connections: 50, duration, ...extra });

/** POSTs a signed completion for `taskId` and waits for its frame on the owner's stream. */
async function webhookToSse(samples: number) {
  const stream = await openSse(base, owner.cookie);
  const webhook = new Webhook(webhookSecret);
  const waiting = new Map<string, () => void>();
  stream.onFrame((frame) => {
    const id = /"taskId":"([^"]+)"/.exec(frame)?.[1];
    if (id) waiting.get(id)?.();
  });
  const ids: string[] = [];
  const taskDb = createDb(env.DATABASE_URL);
  const ts = new Date().toISOString();
  for (let i = 0; i < samples; i++) {
    const id = randomUUID();
    ids.push(id);
    // Rows the runner never sees (`processing`, never dispatched), so only the webhook moves them.
    await taskDb
      .insertInto("task")
      .values({
        id,
        type: "report.generate",
        status: "processing",
        user_id: owner.id,
        payload: null,
        result: null,
        created_at: ts,
        updated_at: ts,
        completed_at: null,
      })
      .execute();
  }
  await taskDb.destroy();
  const times: number[] = [];
  for (const id of ids) {
    const body = JSON.stringify({ taskId: id, status: "completed", result: { bench: true } });
    const at = new Date();
    const arrived = new Promise<void>((resolve) => waiting.set(id, resolve));
    const t0 = performance.now();
    const response = await fetch(`${base}/api/webhooks/tasks`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": webhook.sign(id, at, body),
      },
      body,
    });
    await response.arrayBuffer();
    await arrived;
    times.push(performance.now() - t0);
  }
  stream.close();
  times.sort((a, b) => a - b);
  const pick = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: pick(0.5), p99: pick(0.99) };
}

await waitForHealth();
console.log(`seed: ${seedMs.toFixed(0)} ms on a fresh database`);
console.log(`build ./${buildDir}, loopback; the server is one Node process\n`);
console.log(`database: ${pgSchema ? "PostgreSQL (BENCH_DATABASE_URL)" : "SQLite file"}\n`);

// SSE first, on a quiet server, so the load tests' garbage does not blur the RSS deltas.
await webhookToSse(50); // warm-up
const quiet = await webhookToSse(200);
console.log(
  `webhook -> SSE, owner alone:            p50 ${fmt(quiet.p50, 2)} ms   p99 ${fmt(quiet.p99, 2)} ms`,
);
const baseline = rssKb();
const streams = [];
let opened = 0;
for (const count of sseCounts) {
  streams.push(
    ...(await openMany(
      base,
      others.map((o) => o.cookie),
      count - opened,
    )),
  );
  opened = count;
  await new Promise((r) => setTimeout(r, 2000));
  const perConnKb = (rssKb() - baseline) / count;
  const busy = await webhookToSse(200);
  console.log(
    `+ ${String(count).padStart(5)} other users' streams open:  p50 ${fmt(busy.p50, 2)} ms   p99 ${fmt(busy.p99, 2)} ms   ${perConnKb.toFixed(1)} KB RSS per open stream`,
  );
}
for (const s of streams) s.close();
await new Promise((r) => setTimeout(r, 1000));

console.log(`\nautocannon: 50 connections, ${duration} s each`);
await load("/api/ping", { duration: 2 }); // warm-up
const bare = await load("/api/ping");
line("GET /api/ping (bare route)", bare);
line("GET /dashboard (signed in)", await load("/dashboard", { headers: { Cookie: owner.cookie } }), bare);
line(
  "POST /api/tasks (202)",
  await load("/api/tasks", {
    method: "POST",
    headers: { Cookie: owner.cookie, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin" },
    body: JSON.stringify({ type: "report.generate", payload: { durationMs: 0 } }),
  }),
  bare,
);
if (pgSchema) {
  // The server first: its worker must not be mid-query when the schema goes.
  server.kill("SIGTERM");
  if (server.exitCode === null) await new Promise((r) => server.once("exit", r));
  await pgSchema.drop();
}
process.exit(0);
