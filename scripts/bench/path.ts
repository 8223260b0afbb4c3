// The request path beside the stock React Router app (decision 041); run `npm run build` first.
//   PATH_PROFILE=dir tsx scripts/bench/path.ts   also writes a CPU profile of our server
// Compare ratios, not absolutes: the machine is shared.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import { createDb } from "../../db/connection";
import { databaseFor } from "./databases";
import { BENCH_ADMIN, benchFixtures } from "./fixtures";
import { cpuMsOf, startServer } from "./server";
import { signInFigures } from "./sign-ins";
import { startStock } from "./stock";

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
    probe.on("error", fail);
  });
}

const buildDir = process.env.BUILD_DIR ?? "build";
const port = Number(process.env.PATH_PORT ?? 3294);
const stockPort = Number(process.env.STOCK_PORT ?? 0) || (await freePort());
const duration = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.PATH_ROUNDS ?? 3);
const profileDir = process.env.PATH_PROFILE;
const cacheDir = process.env.BENCH_CACHE_DIR || ".bench";
const base = `http://127.0.0.1:${port}`;

if (!existsSync(`${buildDir}/server/index.js`)) {
  console.error(`No production build in ./${buildDir}: run \`npm run build\` first (or set BUILD_DIR).`);
  process.exit(1);
}

mkdirSync(cacheDir, { recursive: true });
const database = await databaseFor("empty", { databaseUrl: process.env.BENCH_DATABASE_URL, cacheDir });
const secret = randomBytes(32).toString("hex");
const env = {
  NODE_ENV: "production",
  BUILD_DIR: buildDir,
  DATABASE_URL: database.url,
  PORT: String(port),
  HOST: "127.0.0.1",
  BASE_URL: base,
  SESSION_SECRET: secret,
  TASK_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
  SUPER_ADMIN_EMAIL: BENCH_ADMIN.email,
  SUPER_ADMIN_PASSWORD: BENCH_ADMIN.password,
  LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
  TASK_MAX_OPEN_PER_USER: "1000000",
  // Many sign-ins a second from one address would otherwise hit the per-IP limit.
  RATE_LIMIT_LOGIN_PER_IP: "1000000000",
  RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: "1000",
};

const db = createDb(env.DATABASE_URL);
const owner = await benchFixtures(db, secret)
  .then((fx) => fx.owner.cookie)
  .finally(() => db.destroy());

const server = await startServer(env, join(cacheDir, "server-path.log"), {
  nodeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  entry: process.env.PATH_SERVER ? [process.env.PATH_SERVER] : undefined,
});
const stock = await startStock(stockPort);

type Load = { url: string; method?: string; headers?: Record<string, string>; body?: string };
type Measured = Result & { cpuMs: number; over2s: number };
async function run(l: Load, seconds = duration): Promise<Measured> {
  // CPU time per request: other load on a shared machine blurs it far less than requests per second.
  const cpuMs = l.url.startsWith(base) ? server.cpuMs : () => cpuMsOf(stock.pid);
  const before = cpuMs();
  const instance = autocannon({ connections: 50, duration: seconds, timeout: 30, ...l });
  let over2s = 0;
  instance.on("response", (_client, _status, _bytes, ms) => {
    if (ms > 2000) over2s++;
  });
  const result = await instance;
  return { ...result, over2s, cpuMs: (cpuMs() - before) / Math.max(1, result.requests.total) };
}

const ours = {
  ping: { url: `${base}/api/ping` },
  dashboard: { url: `${base}/dashboard`, headers: { Cookie: owner } },
  users: { url: `${base}/dashboard/users`, headers: { Cookie: owner } },
  tasks: {
    url: `${base}/api/tasks`,
    method: "POST",
    headers: { Cookie: owner, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin" },
    body: JSON.stringify({ type: "report.generate", payload: { durationMs: 0 } }),
  },
};
const theirs = {
  ping: { url: `${stock.base}/api/ping` },
  page: { url: `${stock.base}/` },
  dash: { url: `${stock.base}/dash` },
};

for (const l of [ours.ping, ours.dashboard, ours.users, theirs.ping, theirs.page, theirs.dash])
  await run(l, 2); // warm-up

const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(8);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Alternating short runs, so each ratio is taken between neighbouring runs on a shared machine. */
async function compare(name: string, mine: Load, yardstickName: string, yardstick: Load) {
  const a: Measured[] = [];
  const b: Measured[] = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await run(yardstick));
    a.push(await run(mine));
  }
  const show = (label: string, rs: Measured[]) => {
    const bad = rs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
    const max = Math.max(...rs.map((r) => r.latency.max));
    const slow = rs.reduce((n, r) => n + r.over2s, 0);
    console.log(
      `${label.padEnd(27)}${fmt(median(rs.map((r) => r.requests.average)), 0)} req/s  p50${fmt(median(rs.map((r) => r.latency.p50)))} ms  p99${fmt(median(rs.map((r) => r.latency.p99)))} ms  max${fmt(max, 0)} ms  over 2 s${fmt(slow, 0)}  CPU/req${fmt(median(rs.map((r) => r.cpuMs)), 3)} ms${bad ? `  (${bad} non-2xx/errors/timeouts)` : ""}`,
    );
  };
  show(yardstickName, b);
  show(name, a);
  const throughput = median(a.map((r, i) => r.requests.average / b[i]!.requests.average));
  const cpu = median(a.map((r, i) => b[i]!.cpuMs / r.cpuMs));
  const p99 = median(a.map((r, i) => r.latency.p99 / Math.max(1, b[i]!.latency.p99)));
  console.log(
    `${"".padEnd(27)}=> ${throughput.toFixed(2)}x stock in req/s, ${cpu.toFixed(2)}x in CPU per request, p99 ${p99.toFixed(2)}x stock's\n`,
  );
}

console.log(
  `autocannon, 50 connections, ${rounds} alternating runs of ${duration} s each; ours: ${process.env.PATH_SERVER ?? `${buildDir}/server.js`} (LOG_LEVEL=${env.LOG_LEVEL})\n`,
);
// POST /api/tasks last: the tasks it starts run in this process afterwards.
const only = new Set((process.env.PATH_ONLY ?? "ping,dashboard,users,tasks,sign-ins").split(","));
if (only.has("ping")) await compare("GET /api/ping", ours.ping, "stock GET /api/ping", theirs.ping);
if (only.has("dashboard")) {
  await compare("GET /dashboard (signed in)", ours.dashboard, "stock GET / (empty page)", theirs.page);
  await compare("GET /dashboard (signed in)", ours.dashboard, "stock GET /dash (same output)", theirs.dash);
}
if (only.has("users"))
  await compare("GET /dashboard/users", ours.users, "stock GET /dash (same output)", theirs.dash);
if (only.has("tasks")) await compare("POST /api/tasks (202)", ours.tasks, "stock GET /api/ping", theirs.ping);

if (only.has("sign-ins")) {
  const s = await signInFigures({
    base,
    pid: server.pid,
    email: BENCH_ADMIN.email,
    password: BENCH_ADMIN.password,
    page: {
      name: "GET /dashboard",
      expect: 200,
      request: () => ({ method: "GET", path: "/dashboard", headers: { Cookie: owner } }),
    },
    seconds: duration * 2,
  });
  console.log(
    `password sign-ins (argon2id 19 MiB, 2 passes, 1 lane; ${availableParallelism()} cores), 8 connections: ${s.perSecond.toFixed(1)}/s, ` +
      `${s.cpuMsPerSignIn.toFixed(1)} ms CPU each = ${s.perCoreSecond.toFixed(1)} per core-second` +
      `${s.failed ? ` (${s.failed} not redirected)` : ""}; ` +
      `beside them ${s.page.name} p99 ${s.page.besideP99} ms (alone ${s.page.aloneP99} ms), ${s.page.besideOver2s} over 2 s` +
      "\n  (published sizing: Keycloak 15 per second per vCPU; PocketBase about 28 per second on 2 vCPU)",
  );
}

await stock.stop();
await server.stop(); // the profile is written as the process exits
await database.drop();
if (profileDir) console.log(`CPU profile written to ${profileDir}`);
process.exit(0);
