// npm run bench: drives the production build (it builds nothing: run `npm run build` first) over
// loopback at each data size (BENCH_SIZES, default empty,10k,100k) and prints every page and API
// endpoint's latency and throughput, its multiple of the empty database's, and the 50-connection
// figures beside a stock React Router app in the same run. Figures depend on the machine; compare
// ratios, not absolutes. The bulk sizes are seeded once into .bench/ (npm run bench:scale) and copied.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDb } from "../db/connection";
import { type BenchDatabase, databaseFor } from "./bench/databases";
import { endpoints } from "./bench/endpoints";
import {
  BENCH_ADMIN,
  benchFixtures,
  processingTasks,
  tasksSettled,
  usersWithSessions,
} from "./bench/fixtures";
import { heavyFigures, type StockApp, startStockIfPresent } from "./bench/heavy";
import { sequentialLatency } from "./bench/latency";
import { load } from "./bench/load";
import { type BenchOptions, benchOptions } from "./bench/options";
import { writeReadmeTable } from "./bench/readme-table";
import { type BenchRun, curveTable, type EndpointFigures, type SizeResult, sizeTable } from "./bench/report";
import { type RunningServer, startServer } from "./bench/server";
import { sseFigures } from "./bench/sse-figures";
import { SIZES, type SizeName } from "./bulk/sizes";

const opts = benchOptions();
if (!existsSync(`${opts.buildDir}/server/index.js`)) {
  console.error(`No production build in ./${opts.buildDir}: run \`npm run build\` first (or set BUILD_DIR).`);
  process.exit(1);
}
process.on("SIGINT", () => process.exit(130));

const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));
function rowsLabel(size: SizeName): string {
  const spec = SIZES[size];
  return spec
    ? `${count(spec.users)} users / ${count(spec.audits)} audit rows / ${count(spec.tasks)} tasks`
    : "seed only";
}

/** Measures one size: fixtures, server, SSE (first size only), every endpoint, then 50 connections. */
async function measureSize(
  size: SizeName,
  database: BenchDatabase,
  withSse: boolean,
): Promise<SizeResult & { sse?: string[] }> {
  const secret = randomBytes(32).toString("hex");
  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const db = createDb(database.url);
  const fx = await benchFixtures(db, secret);
  // Ten streams per user at most (app/events/stream.server.ts), so enough users to hold them all.
  const others = withSse
    ? await usersWithSessions(db, Math.max(100, Math.ceil(Math.max(...opts.sse) / 10)), secret, "Other")
    : [];
  let server: RunningServer | undefined;
  try {
    server = await startServer({
      NODE_ENV: "production",
      BUILD_DIR: opts.buildDir,
      DATABASE_URL: database.url,
      PORT: String(opts.port),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${opts.port}`,
      SESSION_SECRET: secret,
      TASK_WEBHOOK_SECRET: webhookSecret,
      SUPER_ADMIN_EMAIL: BENCH_ADMIN.email,
      SUPER_ADMIN_PASSWORD: BENCH_ADMIN.password,
      LOG_LEVEL: "warn",
      // The load posts tasks as one user as fast as it can; it measures the route, not the cap.
      TASK_MAX_OPEN_PER_USER: "100000",
    });
    let sse: string[] | undefined;
    if (withSse) {
      console.log("\nSSE (on this size only)");
      sse = await sseFigures({
        base: server.base,
        databaseUrl: database.url,
        webhookSecret,
        owner: fx.owner,
        others: others.map((o) => o.cookie),
        counts: opts.sse,
        rssKb: server.rssKb,
      });
    }
    const figures: EndpointFigures[] = [];
    const list = endpoints(
      fx,
      {
        secret: webhookSecret,
        // one task per request: the sequential ones, then as many as 10 connections could complete
        taskIds: () => processingTasks(db, opts.samples + 10 + 2000 * opts.seconds),
      },
      () => tasksSettled(db, fx.owner.id),
    );
    console.log(`\n${size}: measuring ${list.length} pages and endpoints`);
    for (const endpoint of list) {
      // The previous endpoint has settled: a second writer now does not race a busy server.
      await endpoint.prepare?.();
      const one = await sequentialLatency(server.base, endpoint, { samples: opts.samples });
      const ten = await load(server.base, endpoint, 10, opts.seconds);
      await endpoint.settle?.();
      figures.push({ name: endpoint.name, ...one, rps: ten.rps, bad: ten.bad });
    }
    const heavy = await heavyFigures(server.base, fx.owner.cookie, opts.seconds, stock);
    return { size, rows: rowsLabel(size), seed: database.seed, endpoints: figures, heavy, sse };
  } finally {
    await server?.stop();
    await db.destroy();
  }
}

async function main(options: BenchOptions) {
  const run: BenchRun = {
    startedAt: new Date().toISOString(),
    database: options.databaseUrl ? "PostgreSQL" : "SQLite",
    seconds: options.seconds,
    sizes: [],
  };
  console.log(
    `build ./${options.buildDir}, ${run.database}, loopback, one Node process; sizes ${options.sizes.join(", ")}; ` +
      `${options.seconds} s of load per figure${stock ? "" : "; no stock app (scripts/bench/stock.ts is missing)"}`,
  );
  for (const [i, size] of options.sizes.entries()) {
    console.log(`\n== ${size}: ${rowsLabel(size)} ==`);
    const database = await databaseFor(size, options);
    try {
      const { sse, ...result } = await measureSize(size, database, i === 0 && options.sse.length > 0);
      if (sse) run.sse = sse.map((line) => `${size}: ${line}`);
      run.sizes.push(result);
      console.log(
        `\n${sizeTable(
          result,
          run.sizes.find((s) => s.size === "empty"),
        )}`,
      );
    } finally {
      await database.drop();
    }
  }
  console.log(`\n== the curve ==\n${curveTable(run)}`);
  mkdirSync(options.cacheDir, { recursive: true });
  const saved = join(options.cacheDir, "last.json");
  writeFileSync(saved, JSON.stringify(run, null, 2));
  console.log(`\nfigures saved in ${saved}`);
  if (options.markdown) {
    writeReadmeTable(run);
    console.log("README.md: performance table regenerated");
  }
}

let stock: StockApp | undefined;
try {
  stock = await startStockIfPresent(opts.stockPort);
  await main(opts);
} finally {
  await stock?.stop();
}
process.exit(0);
