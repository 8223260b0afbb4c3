import { existsSync } from "node:fs";
import type { Endpoint } from "./endpoints";
import { postTask } from "./endpoints";
import { load } from "./load";
import type { HeavyFigures } from "./report";

export type StockApp = { base: string; stop(): Promise<void> };

/** Imported by path, so this file compiles without scripts/bench/stock.ts. */
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

/** Each beside the stock app's routes measured right after it, so both see the same machine. */
export async function heavyFigures(
  base: string,
  cookie: string,
  seconds: number,
  stock: StockApp | undefined,
  idle: () => Promise<unknown>,
): Promise<HeavyFigures[]> {
  const resource = plain("stock /api/ping", "/api/ping");
  const empty = plain("stock empty page", "/");
  const sameOutput = plain("stock page of the same output", "/dash");
  const signedIn = { Cookie: cookie };
  const runs: [Endpoint, Endpoint[]][] = [
    [plain("GET /api/ping (bare)", "/api/ping"), [resource]],
    [plain("GET /dashboard (signed in)", "/dashboard", signedIn), [sameOutput, empty]],
    [plain("GET /dashboard/users", "/dashboard/users", signedIn), [sameOutput]],
    [postTask(cookie), [resource]],
  ];
  await load(base, runs[0]![0], 50, 2); // warm-up
  if (stock) for (const warm of [resource, empty, sameOutput]) await load(stock.base, warm, 50, 2);
  const out: HeavyFigures[] = [];
  for (const [endpoint, yardsticks] of runs) {
    const app = await load(base, endpoint, 50, seconds);
    await idle();
    const stocks = [];
    if (stock)
      for (const yardstick of yardsticks) {
        const theirs = await load(stock.base, yardstick, 50, seconds);
        stocks.push({ name: yardstick.name, rps: theirs.rps, p99: theirs.p99 });
      }
    out.push({
      name: endpoint.name,
      rps: app.rps,
      p99: app.p99,
      over2s: app.over2s,
      bad: app.bad,
      ...(stocks.length ? { stocks } : {}),
    });
  }
  return out;
}
