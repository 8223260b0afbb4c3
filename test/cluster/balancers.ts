import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { onCleanup } from "./cleanup";

/**
 * haproxy and nginx from the distribution, each running the configuration that the docs ship
 * (docs/deploy/haproxy.cfg, docs/deploy/nginx.conf), in a temporary directory of their own.
 */
export type Balancer = { name: "haproxy" | "nginx"; url: string; child: ChildProcess; output: string[] };

export type BalancerVars = { LISTEN_PORT: number; PUBLIC_HOST: string; APPS: string[] };

const HAPROXY = process.env.CLUSTER_HAPROXY ?? "/usr/sbin/haproxy";
const NGINX = process.env.CLUSTER_NGINX ?? "/usr/sbin/nginx";

export function balancersAvailable(): boolean {
  return spawnSync(HAPROXY, ["-v"]).status === 0 && spawnSync(NGINX, ["-v"]).status === 0;
}

/** The docs' file with its ${NAME}s replaced, as envsubst (nginx) or haproxy itself would. */
function rendered(file: string, values: Record<string, string>, readyPath: string): string {
  const text = readFileSync(resolve("docs/deploy", file), "utf8").replace(
    /\$\{([A-Z0-9_]+)\}/g,
    (whole, name) => (name in values ? values[name]! : whole),
  );
  // CLUSTER_READY_PATH=/healthz measures a server that has no /readyz yet (the "before" figures).
  return text.replaceAll("/readyz", readyPath);
}

function track(child: ChildProcess, output: string[]) {
  const keep = (d: Buffer) => {
    output.push(String(d));
    if (output.length > 100) output.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
}

async function listening(url: string, output: string[], child: ChildProcess) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the balancer exited: ${output.join("")}`);
    try {
      await (await fetch(`${url}/healthz`)).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url}: the balancer does not listen: ${output.join("")}`);
}

function vars(v: BalancerVars, listen: string): Record<string, string> {
  return {
    LISTEN: listen,
    PUBLIC_HOST: v.PUBLIC_HOST,
    ...Object.fromEntries(v.APPS.map((a, i) => [`APP${i + 1}`, a])),
  };
}

export async function startHaproxy(v: BalancerVars, readyPath: string): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), "cluster-haproxy-"));
  const config = join(dir, "haproxy.cfg");
  writeFileSync(config, rendered("haproxy.cfg", vars(v, `127.0.0.1:${v.LISTEN_PORT}`), readyPath));
  const check = spawnSync(HAPROXY, ["-c", "-q", "-f", config], { encoding: "utf8" });
  if (check.status !== 0)
    throw new Error(`haproxy refuses docs/deploy/haproxy.cfg: ${check.stderr}${check.stdout}`);
  // -db: in the foreground, so the child is haproxy itself and the test can end it.
  const child = spawn(HAPROXY, ["-db", "-f", config], { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  track(child, output);
  onCleanup(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${v.LISTEN_PORT}`;
  await listening(url, output, child);
  return { name: "haproxy", url, child, output };
}

export async function startNginx(v: BalancerVars, readyPath: string): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), "cluster-nginx-"));
  for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, sub));
  writeFileSync(
    join(dir, "dashboard.conf"),
    rendered("nginx.conf", vars(v, `127.0.0.1:${v.LISTEN_PORT}`), readyPath),
  );
  // The main file a distribution ships, reduced to what a temporary directory allows: the docs'
  // file is included in http {} as /etc/nginx/conf.d/*.conf would be.
  const root = process.getuid?.() === 0;
  writeFileSync(
    join(dir, "nginx.conf"),
    `${root ? "user root;\n" : ""}worker_processes 1;
error_log stderr warn;
pid ${join(dir, "nginx.pid")};
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, "body")};
  proxy_temp_path ${join(dir, "proxy")};
  fastcgi_temp_path ${join(dir, "fastcgi")};
  uwsgi_temp_path ${join(dir, "uwsgi")};
  scgi_temp_path ${join(dir, "scgi")};
  include ${join(dir, "dashboard.conf")};
}
`,
  );
  const args = ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", "stderr"];
  const check = spawnSync(NGINX, [...args, "-t", "-q"], { encoding: "utf8" });
  if (check.status !== 0)
    throw new Error(`nginx refuses docs/deploy/nginx.conf: ${check.stderr}${check.stdout}`);
  const child = spawn(NGINX, [...args, "-g", "daemon off;"], { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  track(child, output);
  onCleanup(() => {
    // The master ends its workers on SIGTERM; SIGKILL would leave them behind.
    if (child.exitCode === null) child.kill("SIGTERM");
    spawnSync("sleep", ["0.3"]);
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${v.LISTEN_PORT}`;
  await listening(url, output, child);
  return { name: "nginx", url, child, output };
}
