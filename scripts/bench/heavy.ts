import { existsSync } from "node:fs";
import type { Endpoint } from "./endpoints";
import { postTask } from "./endpoints";
import { load } from "./load";
import type { HeavyFigures } from "./report";

/** The stock React Router app (bench/stock/, started by scripts/bench/stock.ts when that module exists). */
export type StockApp = { base: string; stop(): Promise<void>; resourcePath?: string; pagePath?: string };

/**
 * Starts the stock app when `scripts/bench/stock.ts` is there; without it the 50-connection figures
 * are printed without their stock ratios. Imported by path, so this file compiles either way.
 */
export async function startStockIfPresent(port: number): Promise<StockApp | undefined> {
  const file = new URL("./stock.ts", import.meta.url);
  if (!existsSync(file)) return undefined;
  const mod = (await import(file.href)) as { startStock?: (port: number) => Promise<StockApp> };
  return mod.startStock?.(port);
}

const plain = (name: string, path: string, headers: Record<string, string> = {}): Endpoint => ({
  name,
  expect: 200,
  request: () => ({ method: "GET", path, headers }),
});

/**
 * 50 connections on the bare route, the signed-in dashboard and task creation, each beside the
 * stock app's resource route or empty page measured right after it (so both see the same machine).
 */
export async function heavyFigures(
  base: string,
  cookie: string,
  seconds: number,
  stock: StockApp | undefined,
  idle: () => Promise<unknown>,
): Promise<HeavyFigures[]> {
  const stockResource = plain("stock resource route", stock?.resourcePath ?? "/api/ping");
  const stockPage = plain("stock empty page", stock?.pagePath ?? "/");
  const runs: [Endpoint, Endpoint][] = [
    [plain("GET /api/ping (bare)", "/api/ping"), stockResource],
    [plain("GET /dashboard (signed in)", "/dashboard", { Cookie: cookie }), stockPage],
    [postTask(cookie), stockResource],
  ];
  await load(base, runs[0]![0], 50, 2); // warm-up
  if (stock) await load(stock.base, stockResource, 50, 2);
  const out: HeavyFigures[] = [];
  for (const [endpoint, stockEndpoint] of runs) {
    const app = await load(base, endpoint, 50, seconds);
    await idle();
    const theirs = stock ? await load(stock.base, stockEndpoint, 50, seconds) : undefined;
    out.push({
      name: endpoint.name,
      rps: app.rps,
      p99: app.p99,
      over2s: app.over2s,
      bad: app.bad,
      ...(theirs ? { stock: { name: stockEndpoint.name, rps: theirs.rps } } : {}),
    });
  }
  return out;
}
