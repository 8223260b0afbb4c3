import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export type RunningServer = { base: string; pid: number; rssKb(): number; stop(): Promise<void> };

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

export async function startServer(env: Record<string, string | undefined>): Promise<RunningServer> {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } };
  const command = startCommand(pkg.scripts.start);
  const base = `http://127.0.0.1:${env.PORT}`;
  const child: ChildProcess = spawn(process.execPath, command.args, {
    env: { ...process.env, ...command.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = () => child.kill("SIGTERM");
  process.once("exit", kill);
  const server: RunningServer = {
    base,
    pid: child.pid!,
    rssKb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0),
    async stop() {
      process.off("exit", kill);
      if (child.exitCode === null && child.signalCode === null) {
        kill();
        await exited;
      }
    },
  };
  await waitForHealth(base, exited);
  return server;
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
