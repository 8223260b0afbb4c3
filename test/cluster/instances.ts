import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { productionServerArgs } from "../../scripts/server-command";
import { onCleanup } from "./cleanup";

/**
 * The production servers of the cluster test, run as a supervisor (systemd's Restart=always)
 * would: one that exits without being told to is recorded and started again after a pause.
 */
export type Instance = {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  /** The last lines the current process printed (for failure messages). */
  output: string[];
};

type UnexpectedExit = {
  instance: string;
  code: number | null;
  signal: string | null;
  at: number;
  tail: string;
};

const RESTART_PAUSE_MS = 2_000;
const READY_WAIT_MS = 10_000;

export function createInstances(options: {
  buildDir: string;
  ports: number[];
  env: Record<string, string>;
  readyPath: string;
  /** Told the moment an instance gets SIGKILL. */
  onKill?: () => void;
  /** How long a new process may take to answer /healthz (30 s; more on a crowded machine). */
  liveWaitMs?: number;
}) {
  const unexpectedExits: UnexpectedExit[] = [];
  const notReady: string[] = [];
  const expecting = new Set<string>(); // instances we are stopping or killing ourselves
  let closing = false;

  const instances: Instance[] = options.ports.map((port, i) => ({
    name: `app${i + 1}`,
    port,
    url: `http://127.0.0.1:${port}`,
    child: undefined as unknown as ChildProcess,
    output: [],
  }));

  function spawnOne(instance: Instance) {
    const child = spawn(process.execPath, productionServerArgs(options.buildDir), {
      env: {
        ...process.env,
        ...options.env,
        NODE_ENV: "production",
        BUILD_DIR: options.buildDir,
        PORT: String(instance.port),
        HOST: "127.0.0.1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    instance.child = child;
    instance.output = [];
    const keep = (d: Buffer) => {
      // CLUSTER_LOG_DIR keeps every line of every instance, for a failure the tail does not explain.
      if (process.env.CLUSTER_LOG_DIR)
        appendFileSync(`${process.env.CLUSTER_LOG_DIR}/${instance.name}.log`, d);
      instance.output.push(String(d));
      if (instance.output.length > 40) instance.output.shift();
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    child.once("exit", (code, signal) => {
      if (closing || expecting.has(instance.name)) return;
      unexpectedExits.push({
        instance: instance.name,
        code,
        signal,
        at: Date.now(),
        tail: instance.output.join("").slice(-1_500),
      });
      setTimeout(() => {
        if (!closing && instance.child === child) spawnOne(instance);
      }, RESTART_PAUSE_MS);
    });
  }

  async function waitFor(instance: Instance, path: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${instance.url}${path}`, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
        last = `status ${res.status}`;
      } catch (error) {
        last = String((error as Error).cause ?? error);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(
      `${instance.name} not answering 200 on ${path} after ${timeoutMs} ms (${last}):\n${instance.output.join("")}`,
    );
  }

  /**
   * Live (/healthz, else the instance is broken and the test stops), then ready: a server that
   * never turns ready is recorded and the run goes on, so its counts still come out.
   */
  async function ready(instance: Instance) {
    await waitFor(instance, "/healthz", options.liveWaitMs);
    if (options.readyPath === "/healthz") return;
    try {
      await waitFor(instance, options.readyPath, READY_WAIT_MS);
    } catch (error) {
      notReady.push((error as Error).message.split("\n")[0]!);
    }
  }

  function exited(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((r) => child.once("exit", () => r()));
  }

  onCleanup(() => {
    closing = true;
    for (const i of instances)
      if (i.child && i.child.exitCode === null && i.child.signalCode === null) i.child.kill("SIGKILL");
  });

  return {
    instances,
    unexpectedExits,
    /** "app2 not answering 200 on /readyz after 10000 ms (status 404)", once per time it happened. */
    notReady,
    async startAll() {
      for (const i of instances) spawnOne(i);
      await Promise.all(instances.map(ready));
    },
    /** kill -9, then (as a supervisor would) a new process after `pauseMs`, ready when this returns. */
    async crash(instance: Instance, pauseMs: number) {
      expecting.add(instance.name);
      options.onKill?.();
      instance.child.kill("SIGKILL");
      await exited(instance.child);
      await new Promise((r) => setTimeout(r, pauseMs));
      expecting.delete(instance.name);
      spawnOne(instance);
      await ready(instance);
    },
    /** SIGTERM, wait for the process to exit by itself (drain and stop), start it, wait until ready. */
    async restart(instance: Instance, stopTimeoutMs: number) {
      expecting.add(instance.name);
      const child = instance.child;
      const t = Date.now();
      child.kill("SIGTERM");
      const stopped = await Promise.race([
        exited(child).then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), stopTimeoutMs)),
      ]);
      if (!stopped) child.kill("SIGKILL");
      await exited(child);
      const stopMs = Date.now() - t;
      expecting.delete(instance.name);
      spawnOne(instance);
      await ready(instance);
      return { stopMs, exitCode: child.exitCode, killedAfterTimeout: !stopped };
    },
    /** Every instance answers `path` with 200 (after a supervisor restart, say). */
    async allAnswering(path: string, timeoutMs: number) {
      await Promise.all(instances.map((i) => waitFor(i, path, timeoutMs)));
    },
    async stopAll() {
      closing = true;
      await Promise.all(
        instances.map(async (i) => {
          if (i.child.exitCode !== null || i.child.signalCode !== null) return;
          i.child.kill("SIGTERM");
          const timer = setTimeout(() => i.child.kill("SIGKILL"), 15_000);
          await exited(i.child);
          clearTimeout(timer);
        }),
      );
    },
  };
}
