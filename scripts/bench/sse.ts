// npm run bench:sse: RSS per open stream and webhook -> SSE delivery times on the production build
// (run `npm run build` first); exits 1 unless every stream opened and closed again (decision 014).
//   BENCH_SSE=1000,5000,10000  BENCH_SSE_SAMPLES=300  BENCH_SSE_PACED=60  BENCH_SSE_HOLDERS=4
//   BENCH_SSE_ROUTER=0 skips the React Router pass
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createDb } from "../../db/connection";
import { databaseFor } from "./databases";
import { BENCH_ADMIN, benchFixtures, usersWithSessions } from "./fixtures";
import { startServer } from "./server";
import { type Delivery, measureDelivery, quantile } from "./sse-delivery";
import type { HolderCommand, HolderReport } from "./sse-holder";

const buildDir = process.env.BUILD_DIR ?? "build";
const port = Number(process.env.BENCH_PORT ?? 3296);
const counts = (process.env.BENCH_SSE ?? "1000,5000,10000").split(",").filter(Boolean).map(Number);
const samples = Number(process.env.BENCH_SSE_SAMPLES ?? 300);
const paced = Number(process.env.BENCH_SSE_PACED ?? 60);
const holderCount = Number(process.env.BENCH_SSE_HOLDERS ?? 4);
const cacheDir = process.env.BENCH_CACHE_DIR || ".bench";
const host = "127.0.0.1";
const base = `http://${host}:${port}`;
const max = Math.max(0, ...counts);

if (!existsSync(`${buildDir}/server/index.js`)) {
  console.error(`No production build in ./${buildDir}: run \`npm run build\` first (or set BUILD_DIR).`);
  process.exit(1);
}

mkdirSync(cacheDir, { recursive: true });
const database = await databaseFor("empty", { databaseUrl: process.env.BENCH_DATABASE_URL, cacheDir });
const secret = randomBytes(32).toString("hex");
const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
const env = {
  NODE_ENV: "production",
  BUILD_DIR: buildDir,
  DATABASE_URL: database.url,
  PORT: String(port),
  HOST: host,
  BASE_URL: base,
  SESSION_SECRET: secret,
  TASK_WEBHOOK_SECRET: webhookSecret,
  SUPER_ADMIN_EMAIL: BENCH_ADMIN.email,
  SUPER_ADMIN_PASSWORD: BENCH_ADMIN.password,
  LOG_LEVEL: "warn",
};

const db = createDb(env.DATABASE_URL);
let owner: { id: string; cookie: string };
let others: { id: string; cookie: string }[];
try {
  owner = (await benchFixtures(db, secret)).owner;
  // MAX_STREAMS_PER_USER is ten, so one user per ten streams.
  others = await usersWithSessions(db, Math.ceil(max / 10), secret, "Other");
} finally {
  await db.destroy();
}

// BENCH_NODE_ARGS="--cpu-prof" profiles the server; BENCH_SERVER runs another server file on the same build.
const start = (extra: Record<string, string> = {}) =>
  startServer({ ...env, ...extra }, join(cacheDir, "server-sse.log"), {
    nodeArgs: [
      "--expose-gc",
      ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      "--import",
      new URL("./sse-probe.mjs", import.meta.url).pathname,
    ],
    entry: process.env.BENCH_SERVER ? ["--import", "tsx", process.env.BENCH_SERVER] : undefined,
    ipc: true,
  });
const compareRouter = process.env.BENCH_SSE_ROUTER !== "0";
let running = await start(compareRouter ? { EVENTS_ON_SOCKET: "0" } : {});
let server = running.child;
const holders: ChildProcess[] = Array.from({ length: holderCount }, (_, i) =>
  fork(new URL("./sse-holder.ts", import.meta.url).pathname, {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, SSE_HOLDER_ADDRESS: `127.0.0.${2 + i}` },
  }),
);
process.on("exit", () => {
  for (const h of holders) h.kill();
});
process.on("SIGINT", () => process.exit(130));

type Stats = { subscribers: number; rss: number; heapUsed: number };
function stats(message: "sse-stats" | "sse-memory" = "sse-stats"): Promise<Stats> {
  return new Promise((resolve) => {
    server.once("message", (m) => resolve(m as Stats));
    server.send(message);
  });
}

function inServer(): Promise<number[]> {
  return new Promise((resolve) => {
    server.once("message", (m) => resolve((m as { inServer: number[] }).inServer));
    server.send("sse-latency");
  });
}

function ask<T extends HolderReport["type"]>(holder: ChildProcess, command: HolderCommand, reply: T) {
  return new Promise<Extract<HolderReport, { type: T }>>((resolve) => {
    const on = (m: HolderReport) => {
      if (m.type !== reply) return;
      holder.off("message", on);
      resolve(m as Extract<HolderReport, { type: T }>);
    };
    holder.on("message", on);
    holder.send(command);
  });
}

async function openStreams(from: number, to: number, parallel: number) {
  const started = performance.now();
  const per = Math.ceil((to - from) / holders.length);
  const reports = await Promise.all(
    holders.map((holder, i) => {
      const a = from + i * per;
      const b = Math.min(to, a + per);
      const cookies = Array.from(
        { length: Math.max(0, b - a) },
        (_, k) => others[Math.floor((a + k) / 10)]!.cookie,
      );
      return ask(holder, { type: "open", host, port, cookies, count: cookies.length, parallel }, "opened");
    }),
  );
  const failed = reports.reduce((n, r) => n + r.failed, 0);
  if (failed)
    console.log(
      `  ${failed} streams failed to open:`,
      reports.map((r) => r.statuses),
    );
  return { ms: performance.now() - started, opened: reports.reduce((n, r) => n + r.count, 0) };
}

async function dropAll() {
  await Promise.all(holders.map((h) => ask(h, { type: "drop" }, "dropped")));
  const started = performance.now();
  let left = (await stats()).subscribers;
  while (left > 0 && performance.now() - started < 30_000) {
    await new Promise((r) => setTimeout(r, 100));
    left = (await stats()).subscribers;
  }
  return { left, ms: performance.now() - started };
}

const target = {
  base,
  ownerId: owner.id,
  ownerCookie: owner.cookie,
  webhookSecret,
  db: () => createDb(env.DATABASE_URL),
};
type Measured = Delivery & { inServer: number[] };
async function measure(count: number, intervalMs = 0): Promise<Measured> {
  await inServer(); // drop what an earlier run left
  const delivery = await measureDelivery(target, count, intervalMs);
  return { ...delivery, inServer: await inServer() };
}

const ms = (n: number) => n.toFixed(2).padStart(6);
function show(label: string, d: Measured, alone?: Measured) {
  const [p50, p99] = [quantile(d.frame, 0.5), quantile(d.frame, 0.99)];
  const ratio = alone
    ? `  ${(p50 / quantile(alone.frame, 0.5)).toFixed(2)}x/${(p99 / quantile(alone.frame, 0.99)).toFixed(2)}x alone`
    : "";
  const server = d.inServer.length
    ? `in server p50 ${ms(quantile(d.inServer, 0.5))} p99 ${ms(quantile(d.inServer, 0.99))}`
    : "in server n/a";
  console.log(
    `${label.padEnd(37)} frame p50 ${ms(p50)} p99 ${ms(p99)} max ${ms(Math.max(...d.frame))} | ${server} | response p50 ${ms(quantile(d.response, 0.5))} ms${ratio}`,
  );
}

console.log(
  `build ./${buildDir}, ${process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "SQLite"}, loopback, ${holders.length} client processes`,
);
await measure(20); // warm-up: the webhook route and the stream code run once before anything is measured
const pause = () => new Promise((r) => setTimeout(r, Number(process.env.BENCH_SSE_PAUSE_MS ?? 0)));

// Memory first, before hundreds of webhooks grow the heap.
type PerStream = { rss: number; heap: number };
let ok = true;
async function memoryPass(label: string, against?: PerStream[]): Promise<PerStream[]> {
  console.log(`memory per open stream, ${label}`);
  const figures: PerStream[] = [];
  const baseline = await stats("sse-memory");
  let opened = 0;
  for (const [i, count] of counts.entries()) {
    const { ms: openMs } = await openStreams(opened, count, 100);
    const added = count - opened;
    opened = count;
    await new Promise((r) => setTimeout(r, 2000));
    const now = await stats("sse-memory");
    const per = (key: "rss" | "heapUsed") => (now[key] - baseline[key]) / 1024 / count;
    figures.push({ rss: per("rss"), heap: per("heapUsed") });
    const ratio = against?.[i]
      ? ` (${(per("rss") / against[i].rss).toFixed(2)}x RSS, ${(per("heapUsed") / against[i].heap).toFixed(2)}x heap of React Router's)`
      : "";
    console.log(
      `${String(count).padStart(5)} streams open (the last ${added} in ${(openMs / 1000).toFixed(1)} s): ${now.subscribers} subscribers; per stream, after a full GC: ${per("rss").toFixed(1)} KB RSS, ${per("heapUsed").toFixed(1)} KB JS heap${ratio}`,
    );
    ok &&= now.subscribers === count;
    // A quiet window, e.g. for a heap snapshot (BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2).
    await pause();
  }
  if (max > 0) {
    const dropped = await dropAll();
    console.log(`dropped every stream: subscribers back to ${dropped.left} in ${dropped.ms.toFixed(0)} ms`);
    ok &&= dropped.left === 0;
  }
  return figures;
}
let router: PerStream[] | undefined;
if (compareRouter) {
  router = await memoryPass("through React Router (EVENTS_ON_SOCKET=0)");
  await running.stop();
  running = await start();
  server = running.child;
  await measure(20);
}
await memoryPass("on the socket", router);
let opened = 0;

console.log(`\nwebhook -> SSE: ${samples} back to back, ${paced} at one a second (ms)`);
const aloneFast = await measure(samples);
const alonePaced = await measure(paced, 1000);
show("owner alone, back to back", aloneFast);
show("owner alone, 1/s", alonePaced);
opened = 0;
for (const count of counts) {
  await openStreams(opened, count, 100);
  opened = count;
  await new Promise((r) => setTimeout(r, 1000));
  show(`+ ${count} other streams, back to back`, await measure(samples), aloneFast);
  show(`+ ${count} other streams, 1/s`, await measure(paced, 1000), alonePaced);
}
if (max > 0) {
  ok &&= (await dropAll()).left === 0;
  const burst = await openStreams(0, max, Math.ceil(max / holders.length));
  const held = (await stats()).subscribers;
  console.log(
    `\n${max} streams opened at once: ${burst.opened} answered 200 in ${(burst.ms / 1000).toFixed(1)} s, ${held} subscribers`,
  );
  const again = await dropAll();
  console.log(`dropped them abruptly: subscribers back to ${again.left} in ${again.ms.toFixed(0)} ms`);
  ok &&= burst.opened === max && held === max && again.left === 0;
}
// The server first: it must not be mid-query when its database goes.
await running.stop();
await database.drop();
if (!ok) console.error("FAILED: not every stream opened, or the subscriber count did not return to zero");
process.exit(ok ? 0 : 1);
