import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { productionServerArgs } from "../server-command";

export type RunningServer = {
  base: string;
  pid: number;
  child: ChildProcess;
  /** the server's error stacks would drown the figures */
  logFile: string;
  rssKb(): number;
  /** user + system, in ms */
  cpuMs(): number;
  stop(): Promise<void>;
};

export type StartOptions = {
  nodeArgs?: string[];
  entry?: string[];
  ipc?: boolean;
};

export async function startServer(
  env: Record<string, string | undefined>,
  logFile: string,
  options: StartOptions = {},
): Promise<RunningServer> {
  const base = `http://${env.HOST ?? "127.0.0.1"}:${env.PORT}`;
  const log = openSync(logFile, "w");
  const entry = options.entry ?? productionServerArgs(env.BUILD_DIR ?? "build");
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
    // No balancer to drain away from: each run's server stops at once.
    env: { ...process.env, NODE_ENV: "production", DRAIN_MS: "0", ...env },
    stdio: ["ignore", "ignore", log, ...(options.ipc ? (["ipc"] as const) : [])],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = () => child.kill("SIGTERM");
  process.once("exit", kill);
  const server: RunningServer = {
    base,
    pid: child.pid!,
    child,
    logFile,
    rssKb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0),
    cpuMs: () => cpuMsOf(child.pid!),
    async stop() {
      process.off("exit", kill);
      if (child.exitCode === null && child.signalCode === null) {
        kill();
        await exited;
      }
    },
  };
  try {
    await waitForHealth(base, exited);
  } catch (error) {
    console.error(readFileSync(logFile, "utf8").slice(-4000));
    throw error;
  }
  return server;
}

// /proc/PID/stat counts CPU time in clock ticks (100 a second on every usual kernel).
const TICK_MS = 10;

export function cpuMsOf(pid: number): number {
  // The command name (field 2) may hold spaces, so fields are counted after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

/** A server still finishing a dropped load test's work would slow the next figure. */
export async function waitIdle(server: RunningServer, windowMs = 300, timeoutMs = 180_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const before = server.cpuMs();
    await new Promise((r) => setTimeout(r, windowMs));
    if (server.cpuMs() - before <= windowMs * 0.1) return performance.now() - started;
  }
  console.warn(`${server.base} still busy after ${timeoutMs / 1000} s; measuring on`);
  return timeoutMs;
}

async function waitForHealth(base: string, exited: Promise<void>) {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  for (let i = 0; i < 600; i++) {
    if (gone) throw new Error("the server exited before it became healthy (its errors are above)");
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server did not become healthy within 60 s");
}
