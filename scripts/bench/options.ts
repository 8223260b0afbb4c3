import { isSizeName, type SizeName } from "../bulk/sizes";

/** Everything `npm run bench` can be told, from the environment (docs/performance.md) and argv. */
export type BenchOptions = {
  buildDir: string;
  port: number;
  stockPort: number;
  /** load duration of each figure, seconds */
  seconds: number;
  /** most sequential requests per figure (fewer when the time budget runs out first) */
  samples: number;
  sizes: SizeName[];
  /** SSE stream counts; empty skips the SSE figures */
  sse: number[];
  databaseUrl?: string;
  cacheDir: string;
  markdown: boolean;
};

export function parseSizes(text: string | undefined): SizeName[] {
  const names = (text || "empty,10k,100k")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!isSizeName(name)) throw new Error(`BENCH_SIZES: unknown size "${name}" (empty, 10k, 100k)`);
  }
  return names as SizeName[];
}

export function benchOptions(env = process.env, argv = process.argv.slice(2)): BenchOptions {
  const port = Number(env.BENCH_PORT || 3297);
  const sse = (env.BENCH_SSE ?? "1000,5000")
    .split(",")
    .map(Number)
    .filter((n) => n > 0);
  return {
    buildDir: env.BUILD_DIR || "build",
    port,
    // one port per size (three at most), then the stock app
    stockPort: Number(env.BENCH_STOCK_PORT || port + 3),
    seconds: Number(env.BENCH_SECONDS || 5),
    samples: Number(env.BENCH_SAMPLES || 50),
    sizes: parseSizes(env.BENCH_SIZES),
    sse,
    databaseUrl: env.BENCH_DATABASE_URL || undefined,
    cacheDir: env.BENCH_CACHE_DIR || ".bench",
    markdown: argv.includes("--markdown"),
  };
}
