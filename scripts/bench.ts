// npm run bench: the production build (run `npm run build` first) at each data size (BENCH_SIZES,
// default empty,10k,100k). One server per size runs at once and requests go to the sizes in turns,
// so ratios hold on a shared machine; compare ratios, not absolutes (docs/performance.md).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { heavyFigures, type StockApp, startStockIfPresent } from "./bench/heavy";
import { pairedLatency } from "./bench/latency";
import { load } from "./bench/load";
import { type BenchOptions, benchOptions } from "./bench/options";
import { TABLE_FILE, writeReadmeTable } from "./bench/readme-table";
import {
  type BenchRun,
  curveHeader,
  curveRow,
  curveTable,
  machineNote,
  type SizeResult,
  sizeTable,
} from "./bench/report";
import { waitIdle } from "./bench/server";
import { sseFigures } from "./bench/sse-figures";
import { openTarget, rowsLabel, type Target } from "./bench/target";

const opts = benchOptions();
if (!existsSync(`${opts.buildDir}/server/index.js`)) {
  console.error(`No production build in ./${opts.buildDir}: run \`npm run build\` first (or set BUILD_DIR).`);
  process.exit(1);
}
process.on("SIGINT", () => process.exit(130));

async function main(options: BenchOptions, targets: Target[], stock: StockApp | undefined) {
  const run: BenchRun = {
    startedAt: new Date().toISOString(),
    database: options.databaseUrl ? "PostgreSQL" : "SQLite",
    seconds: options.seconds,
    sizes: [],
  };
  const loadAtStart = loadavg()[0]!;
  console.log(
    `build ./${options.buildDir}, ${run.database}, loopback, one Node process per size; ` +
      `${options.seconds} s of load per figure${stock ? "" : "; no stock app (scripts/bench/stock.ts is missing)"}`,
  );
  for (const [i, size] of options.sizes.entries()) {
    console.log(`\n== ${size}: ${rowsLabel(size)} ==`);
    const target = await openTarget(size, options.port + i, options, i === 0 && options.sse.length > 0);
    targets.push(target);
    console.log(`${size}: ${target.database.seed}; serving on ${target.server.base}`);
  }
  for (const target of targets) await waitIdle(target.server);
  const first = targets[0]!;
  if (options.sse.length) {
    console.log(`\nSSE on ${first.size}`);
    const lines = await sseFigures({
      base: first.server.base,
      databaseUrl: first.database.url,
      webhookSecret: first.webhookSecret,
      owner: first.fx.owner,
      others: first.others,
      counts: options.sse,
      rssKb: first.server.rssKb,
    });
    run.sse = lines.map((line) => `${first.size}: ${line}`);
  }
  const results: SizeResult[] = targets.map((t) => ({
    size: t.size,
    rows: t.rows,
    seed: t.database.seed,
    endpoints: [],
    heavy: [],
  }));
  run.sizes = results;
  console.log(`\n${curveHeader(run)}`);
  for (const [j, { name }] of first.endpoints.entries()) {
    const cases = targets.map((t) => ({ base: t.server.base, endpoint: t.endpoints[j]! }));
    // Every server is idle here, so a second writer does not race a busy one.
    for (const c of cases) await c.endpoint.prepare?.();
    const one = await pairedLatency(cases, { samples: options.samples });
    for (const [i, target] of targets.entries()) {
      const ten = await load(target.server.base, cases[i]!.endpoint, 10, options.seconds);
      await cases[i]!.endpoint.settle?.();
      await waitIdle(target.server);
      results[i]!.endpoints.push({ name, ...one[i]!, rps: ten.rps, bad: ten.bad });
    }
    console.log(curveRow(run, name).line);
  }
  for (const [i, target] of targets.entries()) {
    for (const other of targets) await waitIdle(other.server);
    results[i]!.heavy = await heavyFigures(
      target.server.base,
      target.fx.owner.cookie,
      options.seconds,
      stock,
      () => waitIdle(target.server),
    );
  }
  const empty = results.find((s) => s.size === "empty");
  for (const result of results) console.log(`\n${sizeTable(result, empty)}`);
  console.log(`\n== the curve ==\n${curveTable(run)}`);
  run.machine = { load: [loadAtStart, loadavg()[0]!], cores: cpus().length };
  console.log(`\n${machineNote(run)}`);
  mkdirSync(options.cacheDir, { recursive: true });
  const saved = join(options.cacheDir, "last.json");
  writeFileSync(saved, JSON.stringify(run, null, 2));
  console.log(`\nfigures saved in ${saved}`);
  for (const t of targets) {
    const lines = readFileSync(t.server.logFile, "utf8").split("\n").filter(Boolean).length;
    if (lines) console.log(`the ${t.size} server wrote ${lines} lines to stderr: ${t.server.logFile}`);
  }
  if (options.markdown) {
    writeReadmeTable(run);
    console.log(`${TABLE_FILE}: performance table regenerated`);
  }
}

const targets: Target[] = [];
let stock: StockApp | undefined;
try {
  stock = await startStockIfPresent(opts.stockPort);
  await main(opts, targets, stock);
} finally {
  for (const target of targets) await target.close();
  await stock?.stop();
}
process.exit(0);
