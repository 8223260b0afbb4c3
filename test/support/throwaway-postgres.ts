import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * A PostgreSQL cluster of its own, in a temporary directory, for tests that stop, restart or kill
 * the database server (test/database-restart.test.ts, the cluster test): doing that to the shared
 * server of `npm test` would break every other test running beside it. Debian's binaries
 * (`apt-get install postgresql`: /usr/lib/postgresql/<major>/bin, or PG_BIN_DIR); initdb refuses
 * to run as root, so as root every command runs as the `postgres` user (runuser).
 *
 *   const db = await startThrowawayPostgres({ port: 25432 });
 *   db.url                                  // postgres://postgres@127.0.0.1:25432/app
 *   await db.restart({ downMs: 2_000 });     // stop (fast: sessions are ended), wait, start again
 *   await db.kill();                         // SIGKILL the server and remove the directory
 *   await db.stop();                         // stop cleanly and remove the directory
 */
export type ThrowawayPostgres = {
  /** A database `app` owned by `postgres`, trust authentication, on 127.0.0.1. */
  url: string;
  port: number;
  /** Stops the server (fast shutdown) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
  /**
   * Stops the server, waits `downMs` with nothing listening, starts it again and resolves once it
   * accepts connections. `mode: "immediate"` stops it as a crash would (recovery on start).
   */
  restart(options?: { downMs?: number; mode?: "fast" | "immediate" }): Promise<void>;
  /** Kills the server outright (SIGKILL) and removes its directory; safe to call twice. */
  kill(): Promise<void>;
};

export type ThrowawayPostgresOptions = {
  /** The TCP port on 127.0.0.1; it must be free. */
  port: number;
  /** Extra `-c name=value` server settings, e.g. `{ max_connections: "200" }`. */
  settings?: Record<string, string>;
};

/** The directory of initdb and pg_ctl, or undefined when PostgreSQL's server binaries are missing. */
function postgresBinDir(): string | undefined {
  if (process.env.PG_BIN_DIR)
    return existsSync(join(process.env.PG_BIN_DIR, "initdb")) ? process.env.PG_BIN_DIR : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], "bin") : undefined;
}

/** True when a throwaway cluster can be started here (binaries present, and a user to run them as). */
export function throwawayPostgresAvailable(): boolean {
  return postgresBinDir() !== undefined && (!isRoot() || postgresUser() !== undefined);
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startThrowawayPostgres(options: ThrowawayPostgresOptions): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL server binaries (apt-get install postgresql, or set PG_BIN_DIR)");
  const { port } = options;
  if (await portInUse(port))
    throw new Error(`port ${port} is in use: a throwaway PostgreSQL from an earlier run may still be up`);

  const dir = mkdtempSync(join(tmpdir(), "throwaway-pg-"));
  const data = join(dir, "data");
  const socketDir = join(dir, "socket");
  const log = join(dir, "server.log");
  mkdirSync(socketDir);
  const owner = isRoot() ? postgresUser() : undefined;
  if (isRoot() && !owner)
    throw new Error("running as root, and there is no postgres user to run the server as");
  if (owner) for (const path of [dir, socketDir]) chownSync(path, owner.uid, owner.gid);

  /**
   * Runs a PostgreSQL binary as the cluster's owner (asynchronously: the test's requests keep
   * running meanwhile); rejects with its output and the server log's end when it fails.
   */
  function run(name: string, args: string[]): Promise<void> {
    const command = owner ? "runuser" : join(bin!, name);
    const argv = owner ? ["-u", "postgres", "--", join(bin!, name), ...args] : args;
    return new Promise((resolve, reject) => {
      execFile(command, argv, { cwd: dir, encoding: "utf8" }, (error, stdout, stderr) => {
        if (!error) return resolve();
        const serverLog = existsSync(log) ? readFileSync(log, "utf8").slice(-2_000) : "";
        reject(new Error(`${name} ${args.join(" ")} failed:\n${stdout}${stderr}\n${serverLog}`));
      });
    });
  }

  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: socketDir,
    // A test cluster: nothing to keep after a crash of the machine, so no waiting for the disk.
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    ...options.settings,
  };
  const serverOptions = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(" ");

  const start = () => run("pg_ctl", ["-D", data, "-l", log, "-o", serverOptions, "-w", "-t", "30", "start"]);
  const halt = (mode: "fast" | "immediate") =>
    run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "30", "stop"]);

  await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  await start();
  let gone = false;

  function postmasterPid(): number | undefined {
    const file = join(data, "postmaster.pid");
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  // Whatever happens to the test process, the server does not outlive it.
  const onExit = () => {
    const pid = postmasterPid();
    if (pid) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);

  function removeAll() {
    gone = true;
    process.removeListener("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
  }

  const admin = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
  await admin.connect();
  await admin.query("create database app");
  await admin.end();

  return {
    url: `postgres://postgres@127.0.0.1:${port}/app`,
    port,
    async stop() {
      if (gone) return;
      try {
        if (postmasterPid()) await halt("fast");
      } finally {
        removeAll();
      }
    },
    async restart({ downMs = 0, mode = "fast" } = {}) {
      await halt(mode);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    async kill() {
      if (gone) return;
      const pid = postmasterPid();
      if (pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
        // Backends notice the postmaster's death and leave; wait for the port to be free.
        for (let i = 0; i < 100 && (await portInUse(port)); i++) await new Promise((r) => setTimeout(r, 50));
      }
      removeAll();
    },
  };
}
