import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onCleanup } from "./cleanup";

/**
 * A PostgreSQL cluster of the test's own (Debian's initdb and pg_ctl in a temporary directory, on
 * its own port, its socket in that directory), so stopping it disturbs no other test and no
 * other database. initdb refuses root: as root, every command runs as the `postgres` user,
 * which owns the directory.
 */
const BIN = process.env.CLUSTER_POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

export type ThrowawayPostgres = {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust authentication, nothing else on it). */
  url: string;
  port: number;
  start(): void;
  stop(): void;
  /** A fast shutdown (every connection dropped), `downMs` with nothing listening, then a start. */
  restart(options: { downMs: number }): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): void;
};

export function postgresAvailable(): boolean {
  return spawnSync(join(BIN, "initdb"), ["--version"]).status === 0;
}

export function createThrowawayPostgres(port: number): ThrowawayPostgres {
  const dir = mkdtempSync(join(tmpdir(), "cluster-pg-"));
  const data = join(dir, "data");
  const socket = join(dir, "socket");
  mkdirSync(socket);
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
    chownSync(socket, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = root
      ? ["runuser", ["-u", "postgres", "--", join(BIN, cmd), ...args]]
      : [join(BIN, cmd), args];
    const result = spawnSync(file, argv, { encoding: "utf8", cwd: dir });
    if (result.status !== 0) {
      throw new Error(`${cmd} ${args.join(" ")} failed (${result.status}): ${result.stderr}${result.stdout}`);
    }
  };
  // No fsync: the cluster lives for one test; a restart is a clean shutdown, not a crash.
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${socket}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const pgCtl = (...args: string[]) => run("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), ...args]);
  let running = false;

  run("initdb", [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
    "--no-instructions",
  ]);
  const pg: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      pgCtl("-o", options, "-w", "-t", "30", "start");
      running = true;
    },
    stop() {
      if (!running) return;
      running = false;
      pgCtl("-m", "fast", "-w", "-t", "30", "stop");
    },
    async restart({ downMs }) {
      pg.stop();
      await new Promise((r) => setTimeout(r, downMs));
      pg.start();
    },
    destroy() {
      try {
        pg.stop();
      } catch {
        // pg_ctl could not stop it: end the postmaster by the pid it wrote, then remove the directory.
        const pid = Number(readFileSyncSafe(join(data, "postmaster.pid")).split("\n")[0]);
        if (pid > 0) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  onCleanup(() => pg.destroy());
  return pg;
}

function readFileSyncSafe(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
