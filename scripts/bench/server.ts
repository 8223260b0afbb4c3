import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";

export type RunningServer = {
  base: string;
  pid: number;
  /** where the server's stderr goes (its error stacks would drown the figures) */
  logFile: string;
  rssKb(): number;
  /** CPU time the server process has used so far (user + system), in ms */
  cpuMs(): number;
  stop(): Promise<void>;
};

/**
 * How `npm start` runs the production server ("NODE_ENV=production node --import tsx server.ts"):
 * read from package.json, so the bench follows the start command when it changes. Only the plain
 * form `[VAR=value ...] node ARGS...` is understood; anything else is refused with its text.
 */
export function startCommand(script: string): { env: Record<string, string>; args: string[] } {
  const words = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split("=");
    env[name!] = value.join("=");
  }
  if (words[0] !== "node" || words.some((w) => /[&|;<>$`'"]/.test(w)))
    throw new Error(`the bench cannot run this start script as one node process: ${script}`);
  return { env, args: words.slice(1) };
}

export async function startServer(
  env: Record<string, string | undefined>,
  logFile: string,
): Promise<RunningServer> {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } };
  const command = startCommand(pkg.scripts.start);
  const base = `http://127.0.0.1:${env.PORT}`;
  const log = openSync(logFile, "w");
  const child: ChildProcess = spawn(process.execPath, command.args, {
    env: { ...process.env, ...command.env, ...env },
    stdio: ["ignore", "ignore", log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = () => child.kill("SIGTERM");
  process.once("exit", kill);
  const server: RunningServer = {
    base,
    pid: child.pid!,
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

// Linux's clock ticks: /proc/PID/stat counts CPU time in them (100 a second on every usual kernel).
const TICK_MS = 10;

function cpuMsOf(pid: number): number {
  // The command name (field 2) may hold spaces, so fields are counted after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

/**
 * Waits until the server has been nearly idle (under 10% of a core) for `windowMs`. A load test
 * ends by dropping its connections, but the server still finishes what it had started (a slow
 * page under 10 connections can leave a minute of work), which would slow the next figure.
 */
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
