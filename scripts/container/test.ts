import { execFile, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { writeInputsStamp } from "./inputs";

// `npm run test:container`: builds the Dockerfile with podman and checks what an operator relies
// on (docs/deploying.md#container): the image refuses to start without SESSION_SECRET; alone, on
// SQLite under /data, it gets ready, runs as non-root, signs in, finishes a task over the event
// stream, drains on `podman stop` within the grace period and keeps its data across the restart;
// compose.yaml brings up PostgreSQL, two instances, the worker and haproxy, and a sign-in and a
// task through haproxy work. On success it writes scripts/container/inputs.sha256, which tells
// `npm test` the image's inputs were checked as they are (scripts/container/inputs.ts).

const root = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const IMAGE = "localhost/admin-dashboard:test";
const COMPOSE_IMAGE = "localhost/admin-dashboard:latest";
const SECRET = "container-test-secret-0123456789abcdef";
const ADMIN = { email: "admin@container.test", password: "Container-Test-Pass-42" };
const POSTGRES_PASSWORD = "container-test-postgres";
/** podman stop's grace; the server's own stop (drain 4 s, then tasks and streams) must fit in it. */
const STOP_GRACE_S = 20;
const env = { ...process.env, CONTAINERS_CONF: join(root, "scripts/container/containers.conf") };
const suffix = `${process.pid}`;

const began = Date.now();
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  process.stdout.write(`▶ ${name}\n`);
  const value = await fn();
  console.log(`✔ ${name} (${seconds(t)} s)`);
  return value;
}

function check(ok: unknown, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run("podman", args, { env, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Runs a command with its output shown only when it fails. */
function loud(command: string, args: string[], cwd = root): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.on("close", (code) =>
      code === 0
        ? done()
        : fail(new Error(`${command} ${args.join(" ")} exited ${code}\n${output.slice(-6000)}`)),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what}: not within ${ms / 1000} s${last ? ` (${String(last)})` : ""}`);
}

const ready = (url: string, ms = 90_000) =>
  waitFor(`${url}/readyz answering 200`, ms, async () =>
    (await fetch(`${url}/readyz`)).status === 200 ? true : undefined,
  );

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/login`, {
    method: "POST",
    body: new URLSearchParams(ADMIN),
    headers: { Origin: url },
    redirect: "manual",
  });
  if (res.status !== 302)
    throw new Error(`sign-in answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Starts a task and waits for its `task-completed` event on the owner's stream. */
async function taskCompletesOverStream(url: string, cookie: string): Promise<string> {
  const controller = new AbortController();
  const stream = await fetch(`${url}/api/events`, {
    headers: { Cookie: cookie, Accept: "text/event-stream" },
    signal: controller.signal,
  });
  check(stream.status === 200 && stream.body, `the event stream answered ${stream.status}`);
  const reader = stream.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const started = await fetch(`${url}/api/tasks`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: url, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 300 } }),
    });
    if (started.status !== 202)
      throw new Error(`POST /api/tasks answered ${started.status}: ${await started.text()}`);
    const { taskId } = (await started.json()) as { taskId: string };
    const timer = setTimeout(() => controller.abort(), 60_000);
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        check(!done, `the stream ended before task ${taskId} completed`);
        buffer += value;
        const frames = buffer.split("\n\n");
        buffer = frames.pop() ?? "";
        for (const frame of frames)
          if (/^event: task-completed$/m.test(frame) && frame.includes(taskId)) return taskId;
      }
    } finally {
      clearTimeout(timer);
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => {});
  }
}

/** The seed gives the account its role in the transaction that creates it: the row means both. */
async function superAdminSeeded(container: string): Promise<boolean> {
  const query = `select count(*) from user_role r join "user" u on u.id = r.user_id where u.email = '${ADMIN.email}'`;
  const out = await podman(
    ...["exec", "-e", `PGPASSWORD=${POSTGRES_PASSWORD}`, container],
    ...["psql", "-U", "dashboard", "-d", "dashboard", "-tAc", query],
  );
  return Number(out) > 0;
}

async function taskStatus(url: string, cookie: string, taskId: string): Promise<string> {
  const res = await fetch(`${url}/api/tasks/${taskId}`, { headers: { Cookie: cookie } });
  check(res.status === 200, `GET /api/tasks/${taskId} answered ${res.status}`);
  return ((await res.json()) as { status: string }).status;
}

async function alone() {
  const name = `admin-dashboard-test-${suffix}`;
  const volume = `admin-dashboard-data-${suffix}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  try {
    await step("refuses to start in production without SESSION_SECRET", async () => {
      const out = await run("podman", ["run", "--rm", IMAGE], { env }).then(
        () => undefined,
        (error: { stderr: string }) => error.stderr,
      );
      check(out?.includes("SESSION_SECRET must be set"), `started without SESSION_SECRET, or said: ${out}`);
    });
    await step("alone on SQLite under /data: ready, non-root, healthy", async () => {
      await podman("volume", "create", volume);
      await podman(
        ...["run", "-d", "--name", name, "-p", `127.0.0.1:${port}:3000`, "-v", `${volume}:/data`],
        ...["-e", `SESSION_SECRET=${SECRET}`, "-e", "DB_MIGRATE_ON_START=1", "-e", `BASE_URL=${url}`],
        ...["-e", `SUPER_ADMIN_EMAIL=${ADMIN.email}`, "-e", `SUPER_ADMIN_PASSWORD=${ADMIN.password}`],
        ...["-e", "TASK_DEMO_DURATION_MS=300", IMAGE],
      );
      await ready(url);
      const users = (await podman("top", name, "user")).split("\n").slice(1);
      check(
        users.length >= 2 && users.every((u) => u.trim() === "node"),
        `processes run as: ${users.join(", ")}`,
      );
      await podman("healthcheck", "run", name);
    });
    const cookie = await step("signs in", () => signIn(url));
    const taskId = await step("a task finishes over the event stream", () =>
      taskCompletesOverStream(url, cookie),
    );
    await step(`podman stop drains within the ${STOP_GRACE_S} s grace and exits 0`, async () => {
      const t = Date.now();
      await podman("stop", "-t", String(STOP_GRACE_S), name);
      const took = (Date.now() - t) / 1000;
      const exit = await podman("inspect", name, "--format", "{{.State.ExitCode}}");
      const logs = (await run("podman", ["logs", name], { env })).stderr + (await podman("logs", name));
      check(exit === "0", `exited ${exit} after ${took} s (137 is a kill at the end of the grace)`);
      check(took < STOP_GRACE_S, `took ${took} s`);
      check(/"msg":"shutting down"/.test(logs) && /"msg":"stopped"/.test(logs), "no drain in the logs");
    });
    await step("data survives a restart on the volume", async () => {
      await podman("start", name);
      await ready(url);
      const again = await signIn(url);
      check((await taskStatus(url, again, taskId)) === "completed", `task ${taskId} lost its state`);
    });
  } finally {
    await podman("rm", "-f", "-t", "0", name).catch(() => {});
    await podman("volume", "rm", "-f", volume).catch(() => {});
  }
}

async function composed() {
  const dir = mkdtempSync(join(tmpdir(), "compose-test-"));
  const project = `admin-dashboard-test-${suffix}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // compose.yaml as written, in a folder of its own whose .env is this test's, not a developer's.
  copyFileSync(join(root, "compose.yaml"), join(dir, "compose.yaml"));
  mkdirSync(join(dir, "docs/deploy"), { recursive: true });
  copyFileSync(join(root, "docs/deploy/haproxy.cfg"), join(dir, "docs/deploy/haproxy.cfg"));
  writeFileSync(
    join(dir, ".env"),
    [
      `SESSION_SECRET=${SECRET}`,
      `POSTGRES_PASSWORD=${POSTGRES_PASSWORD}`,
      `SUPER_ADMIN_EMAIL=${ADMIN.email}`,
      `SUPER_ADMIN_PASSWORD=${ADMIN.password}`,
      `BASE_URL=${url}`,
      `HTTP_PORT=${port}`,
      "TASK_DEMO_DURATION_MS=300",
      "",
    ].join("\n"),
  );
  const compose = (...args: string[]) => loud("podman-compose", ["-p", project, ...args], dir);
  try {
    await step("compose: PostgreSQL, two instances, the worker and haproxy come up", async () => {
      await podman("tag", IMAGE, COMPOSE_IMAGE);
      await compose("up", "-d");
      // The instances restart until PostgreSQL accepts connections (restart: unless-stopped).
      await ready(url, 180_000);
    });
    // app2 serves as soon as it has migrated, while app1 may still be seeding the account: a
    // sign-in before then meets no account (400, and counts against the sign-in rate limit), so
    // the test waits for the seed's row in PostgreSQL and then signs in once.
    await step("compose: app1 has seeded the super admin", () =>
      waitFor("the super admin's role in PostgreSQL", 120_000, async () =>
        (await superAdminSeeded(`${project}_postgres_1`)) ? true : undefined,
      ),
    );
    const cookie = await step("compose: signs in through haproxy", () => signIn(url));
    await step("compose: a task run by the worker finishes over the event stream", () =>
      taskCompletesOverStream(url, cookie),
    );
  } catch (error) {
    const logs = await run("podman-compose", ["-p", project, "logs", "--tail", "25"], { cwd: dir, env })
      .then(({ stdout, stderr }) => stdout + stderr)
      .catch((e) => String(e));
    console.error(`compose's logs, the last lines of each:\n${logs.slice(0, 20_000)}`);
    throw error;
  } finally {
    await compose("down", "-v").catch((error) => console.error(String(error)));
    rmSync(dir, { recursive: true, force: true });
  }
}

await step("stand-in base images (scripts/container/stand-ins.sh)", () =>
  loud(join(root, "scripts/container/stand-ins.sh"), []),
);
await step(`podman build ${IMAGE}`, () =>
  loud("podman", ["build", "--format", "docker", "--network", "host", "--pull=never", "-t", IMAGE, "."]),
);
await alone();
await composed();
writeInputsStamp();
console.log(`\ncontainer checks passed in ${seconds(began)} s`);
