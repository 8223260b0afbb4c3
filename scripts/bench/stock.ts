import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// The yardstick of the request-path figures (decision 041), served as a stock deployment runs it.
const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const stockDir = join(root, "bench/stock");
const require = createRequire(join(root, "package.json"));
const bin = (pkg: string, file: string) => join(dirname(require.resolve(`${pkg}/package.json`)), file);

function run(child: ChildProcess, what: string) {
  return new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${what} exited with ${code}`))));
  });
}

function sourcesChangedAt(dir = join(stockDir, "app")): number {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? sourcesChangedAt(path) : statSync(path).mtimeMs;
    }),
  );
}

export async function buildStock() {
  const built = join(stockDir, "build/server/index.js");
  if (existsSync(built) && statSync(built).mtimeMs > sourcesChangedAt()) return;
  const child = spawn(process.execPath, [bin("@react-router/dev", "bin.js"), "build"], {
    cwd: stockDir,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await run(child, "building bench/stock");
}

async function waitUntilAnswering(base: string, child: ChildProcess) {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`react-router-serve exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${base}/api/ping`);
      await response.arrayBuffer();
      // Answered by our child, not by something else already on the port.
      if (response.ok && child.exitCode === null) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the stock app did not answer");
}

/** `pid` is the server process, for CPU figures. */
export async function startStock(
  port: number,
): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  await buildStock();
  const base = `http://127.0.0.1:${port}`;
  // morgan's line per request goes to /dev/null, like the project's own request log in the bench.
  const child = spawn(process.execPath, [bin("@react-router/serve", "bin.js"), "build/server/index.js"], {
    cwd: stockDir,
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(force);
    }
  };
  process.once("exit", () => child.kill("SIGTERM"));
  try {
    await waitUntilAnswering(base, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, pid: child.pid!, stop };
}
