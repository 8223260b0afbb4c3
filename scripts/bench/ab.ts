// Two production builds side by side (docs/decisions/041-request-path.md): both servers
// run at once on one database, each path is loaded on them in alternating runs, and the CPU time
// per request of each server process is compared run by run. On a shared machine this says more
// than two separate runs beside the stock app, whose own figures move with the load.
//   AB=build-before,build-after  AB_PATHS=/api/ping,/dashboard  AB_ROUNDS=9  AB_SECONDS=3
//   AB_CONNECTIONS=10  (BUILD_DIR=dir npm run build makes each build)
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { createDb } from "../../db/connection";
import { databaseFor } from "./databases";
import { BENCH_ADMIN, benchFixtures } from "./fixtures";
import { type RunningServer, startServer } from "./server";

const [before, after] = (process.env.AB ?? "").split(",");
if (!before || !after) {
  console.error("AB=build-before,build-after: the two build directories to compare");
  process.exit(1);
}
const rounds = Number(process.env.AB_ROUNDS ?? 9);
const seconds = Number(process.env.AB_SECONDS ?? 3);
const connections = Number(process.env.AB_CONNECTIONS ?? 10);
const paths = (process.env.AB_PATHS ?? "/api/ping,/dashboard").split(",");
const port = Number(process.env.BENCH_PORT ?? 3290);
const cacheDir = process.env.BENCH_CACHE_DIR || ".bench";

mkdirSync(cacheDir, { recursive: true });
const database = await databaseFor("empty", { databaseUrl: process.env.BENCH_DATABASE_URL, cacheDir });
const secret = randomBytes(32).toString("hex");
const db = createDb(database.url);
const cookie = await benchFixtures(db, secret)
  .then((fx) => fx.owner.cookie)
  .finally(() => db.destroy());

function start(buildDir: string, at: number): Promise<RunningServer> {
  const base = `http://127.0.0.1:${at}`;
  return startServer(
    {
      NODE_ENV: "production",
      BUILD_DIR: buildDir,
      DATABASE_URL: database.url,
      PORT: String(at),
      HOST: "127.0.0.1",
      BASE_URL: base,
      SESSION_SECRET: secret,
      TASK_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
      SUPER_ADMIN_EMAIL: BENCH_ADMIN.email,
      SUPER_ADMIN_PASSWORD: BENCH_ADMIN.password,
      LOG_LEVEL: "info",
    },
    join(cacheDir, `ab-${at}.log`),
  );
}

const servers = [await start(before, port), await start(after, port + 1)] as const;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/** One run on one server: requests per second and CPU ms per request of its process. */
async function run(server: RunningServer, path: string) {
  const cpu = server.cpuMs();
  const headers = { Cookie: cookie, "Accept-Encoding": "gzip, deflate, br" };
  const r = await autocannon({ url: server.base + path, connections, duration: seconds, headers });
  return { rps: r.requests.average, cpu: (server.cpuMs() - cpu) / Math.max(1, r.requests.total) };
}

console.log(`${before} vs ${after}: ${rounds} alternating runs of ${seconds} s, ${connections} connections`);
for (const path of paths) {
  for (const server of servers) await run(server, path); // warm-up
  const figures: { rps: number; cpu: number }[][] = [[], []];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 ? [1, 0] : [0, 1];
    for (const side of order) figures[side]!.push(await run(servers[side]!, path));
  }
  const ratios = figures[1]!.map((b, i) => b.cpu / figures[0]![i]!.cpu);
  const side = (name: string, f: { rps: number; cpu: number }[]) =>
    `${name} ${median(f.map((x) => x.rps)).toFixed(0)} req/s, ${median(f.map((x) => x.cpu)).toFixed(3)} ms CPU/req`;
  console.log(
    `${path}: ${side(before, figures[0]!)} | ${side(after, figures[1]!)} | CPU per request after/before ` +
      `${median(ratios).toFixed(2)}x (runs ${ratios.map((r) => r.toFixed(2)).join(" ")})`,
  );
}
for (const server of servers) await server.stop();
await database.drop();
process.exit(0);
