import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../app/db.server";
import { notifyChannel } from "../app/events/postgres-bus.server";
import { productionServerArgs } from "../scripts/server-command";
import { createUser, PASSWORD, setupDatabase } from "./helpers";
import { onPostgres } from "./postgres-schema";

// Two production servers on one PostgreSQL schema (the one test/setup-db.ts made for this file).
// Needs the production build, which `npm test` makes before its PostgreSQL pass.
const BUILD_DIR = process.env.TWO_INSTANCE_BUILD_DIR ?? "build";
const built = existsSync(resolve(BUILD_DIR, "server/index.js"));
const ADMIN = "root@example.test"; // seeded by setupDatabase()

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on("error", fail);
  });
}

type Instance = { url: string; child: ChildProcess; output: string[] };

async function startInstance(port: number, extra: Record<string, string>): Promise<Instance> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, productionServerArgs(BUILD_DIR), {
    env: {
      ...process.env,
      NODE_ENV: "production",
      BUILD_DIR,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: url,
      // Shared by every instance: sessions and the webhook must verify anywhere.
      SESSION_SECRET: "two-instance-session-secret",
      // No balancer to drain away from (test/cluster.test.ts has one): stops take no drain.
      DRAIN_MS: "0",
      TASK_WEBHOOK_SECRET: "whsec_dHdvLWluc3RhbmNlLXdlYmhvb2stc2VjcmV0LTEyMzQ=",
      LOG_LEVEL: "warn",
      TASK_HEARTBEAT_MS: "300",
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (d) => output.push(String(d)));
  child.stderr!.on("data", (d) => output.push(String(d)));
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`instance on ${port} exited: ${output.join("")}`);
      expect((await fetch(`${url}/healthz`)).ok).toBe(true);
    },
    { timeout: 30_000, interval: 200 },
  );
  return { url, child, output };
}

async function signIn(instance: Instance, email = ADMIN): Promise<string> {
  const res = await fetch(`${instance.url}/login`, {
    method: "POST",
    body: new URLSearchParams({ email, password: PASSWORD }),
    redirect: "manual",
  });
  expect(res.status).toBe(302);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Reads an SSE response until an event matches (the stream stays open for the next one). */
function eventReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  async function next(match: (type: string, data: unknown) => boolean): Promise<unknown> {
    for (;;) {
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (data && type !== "ping") {
          const parsed = JSON.parse(data);
          if (match(type, parsed)) return parsed;
        }
        end = buffer.indexOf("\n\n");
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("event stream ended");
      buffer += decoder.decode(value, { stream: true });
    }
  }
  return { next, close: () => reader.cancel() };
}

describe.skipIf(!onPostgres || !built)("two instances on one PostgreSQL", () => {
  let a: Instance;
  let b: Instance;
  let cookieA: string;
  let cookieB: string;

  beforeAll(async () => {
    await setupDatabase();
    const [pa, pb] = [await freePort(), await freePort()];
    // A runs the queue's jobs; B only serves (TASK_WORKER=separate) but still sweeps stalled tasks,
    // so each assertion below proves a message crossed from one process to the other.
    [a, b] = await Promise.all([
      startInstance(pa, { TASK_WORKER: "in-app" }),
      startInstance(pb, { TASK_WORKER: "separate" }),
    ]);
    cookieA = await signIn(a);
    cookieB = await signIn(b);
  }, 90_000);

  afterAll(() => {
    for (const i of [a, b]) if (i && i.child.exitCode === null) i.child.kill("SIGTERM");
  });

  async function postTask(payload: unknown): Promise<string> {
    const res = await fetch(`${a.url}/api/tasks`, {
      method: "POST",
      headers: { Cookie: cookieA, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { taskId: string }).taskId;
  }

  it("delivers a task created on A to B's event stream as task-completed", async () => {
    const stream = await fetch(`${b.url}/api/events`, { headers: { Cookie: cookieB } });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const { next, close } = eventReader(stream);
    const taskId = await postTask({ durationMs: 100 });
    const event = await next(
      (type, d) => type === "task-completed" && (d as { taskId: string }).taskId === taskId,
    );
    expect(event).toMatchObject({ type: "task-completed", taskId, status: "completed" });
    await close();
  });

  it("applies a settings change made on A to B's next request", async () => {
    const page = async () => (await fetch(`${b.url}/dashboard`, { headers: { Cookie: cookieB } })).text();
    await page(); // B has the settings cached now
    const name = `Scaled ${Date.now()}`;
    const saved = await fetch(`${a.url}/dashboard/settings/system`, {
      method: "POST",
      headers: { Cookie: cookieA },
      body: new URLSearchParams({ intent: "system", APP_NAME: name }),
    });
    expect(saved.status).toBe(200);
    expect(await page()).toContain(name);
  });

  // B keeps sessions, roles and the menu in memory (decision 041); A's changes clear them over
  // LISTEN/NOTIFY before A answers, so B's very next request sees them.
  it("applies a role change, a menu edit and a disabled account made on A to B's next request", async () => {
    const person = await createUser({ roles: ["user"] });
    const cookie = await signIn(b, person.email);
    const onB = (path: string) =>
      fetch(`${b.url}${path}`, { headers: { Cookie: cookie }, redirect: "manual" });
    const onA = (path: string, fields: Record<string, string>) =>
      fetch(`${a.url}${path}`, {
        method: "POST",
        headers: { Cookie: cookieA },
        body: new URLSearchParams(fields),
        redirect: "manual",
      });
    expect((await onB("/dashboard/users")).status).toBe(403); // cached on B as a plain user

    const admin = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    const update = { intent: "update", name: person.name, email: person.email, roles: admin.id };
    expect((await onA(`/dashboard/users/${person.id}`, update)).status).toBe(302);
    expect((await onB("/dashboard/users")).status).toBe(200);

    const teams = await db()
      .selectFrom("menu_item")
      .selectAll()
      .where("url", "=", "/dashboard/teams")
      .executeTakeFirstOrThrow();
    const title = `Squads ${Date.now()}`;
    const menu = {
      intent: "update-menu",
      id: teams.id,
      title,
      url: teams.url,
      icon: teams.icon,
      requiredPermission: teams.required_permission,
    };
    expect((await onA("/dashboard/access", menu)).status).toBe(302);
    expect(await (await onB("/dashboard")).text()).toContain(title);

    expect((await onA(`/dashboard/users/${person.id}`, { intent: "disable" })).status).toBe(302);
    const after = await onB("/dashboard");
    expect(after.status).toBe(302);
    expect(after.headers.get("location")).toMatch(/^\/login/);
  });

  // A message over LISTEN/NOTIFY arrives when it arrives, and not at all while the listener is down:
  // B asks the database whether anything changed before it trusts what it holds.
  it("honours a role change made on A at B's next request even while B's listener is reconnecting", async () => {
    const person = await createUser({ roles: ["user"] });
    const cookie = await signIn(b, person.email);
    const onB = () => fetch(`${b.url}/dashboard/users`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect((await onB()).status).toBe(403);
    const channel = notifyChannel(process.env.DATABASE_URL!);
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity where query = ${`LISTEN "${channel}"`}`.execute(
      db(),
    );
    expect(rows.length).toBeGreaterThanOrEqual(2); // A's and B's, perhaps this process's
    const admin = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    const update = { intent: "update", name: person.name, email: person.email, roles: admin.id };
    const saved = await fetch(`${a.url}/dashboard/users/${person.id}`, {
      method: "POST",
      headers: { Cookie: cookieA },
      body: new URLSearchParams(update),
      redirect: "manual",
    });
    expect(saved.status).toBe(302);
    expect((await onB()).status).toBe(200);
    // Back to listening (each instance then ends its streams, which the next tests open).
    await vi.waitFor(
      async () => {
        const { rows: back } = await sql<{ pid: number }>`
          select pid from pg_stat_activity where query = ${`LISTEN "${channel}"`} and state = 'idle'`.execute(
          db(),
        );
        expect(back.length).toBe(rows.length);
      },
      { timeout: 10_000, interval: 100 },
    );
    await new Promise((settle) => setTimeout(settle, 200));
  });

  it("signing out on A ends that session's stream on B; the same person's other session keeps its own", async () => {
    const person = await createUser({ roles: ["user"] });
    const [leaving, staying] = [await signIn(a, person.email), await signIn(a, person.email)];
    const open = async (cookie: string) => {
      const res = await fetch(`${b.url}/api/events`, { headers: { Cookie: cookie } });
      const reader = res.body!.getReader();
      await reader.read(); // the opening ping
      return reader;
    };
    const gone = await open(leaving);
    const kept = eventReader(await fetch(`${b.url}/api/events`, { headers: { Cookie: staying } }));
    const out = await fetch(`${a.url}/logout`, {
      method: "POST",
      headers: { Cookie: leaving },
      redirect: "manual",
    });
    expect(out.status).toBe(302);
    // B ends the signed-out session's stream once A's message arrives (pings aside, nothing else comes).
    for (;;) {
      const chunk = await gone.read();
      if (chunk.done) break;
    }
    const res = await fetch(`${a.url}/api/tasks`, {
      method: "POST",
      headers: { Cookie: staying, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 0 } }),
    });
    expect(res.status).toBe(202);
    const { taskId } = (await res.json()) as { taskId: string };
    expect(
      await kept.next((type, d) => type === "task-completed" && (d as { taskId: string }).taskId === taskId),
    ).toMatchObject({ taskId, status: "completed" });
    await kept.close();
  });

  it("runs a task again on another worker when the instance running it is killed, seen live on B", async () => {
    const stream = await fetch(`${b.url}/api/events`, { headers: { Cookie: cookieB } });
    const { next, close } = eventReader(stream);
    const taskId = await postTask({ durationMs: 5_000 });
    const task = () => db().selectFrom("task").selectAll().where("id", "=", taskId).executeTakeFirstOrThrow();
    await vi.waitFor(async () => expect((await task()).status).toBe("processing"), { timeout: 15_000 });
    a.child.kill("SIGKILL");
    const killed = Date.now();
    // B (no worker of its own) finds it silent and gives it back to the queue, with a job no dead
    // worker holds; report.generate is safe to run again (app/tasks/definitions).
    await vi.waitFor(async () => expect((await task()).status).toBe("pending"), {
      timeout: 15_000,
      interval: 100,
    });
    console.log(`killed instance's task back in the queue after ${Date.now() - killed} ms`);
    const c = await startInstance(await freePort(), { TASK_WORKER: "in-app" });
    try {
      const event = await next(
        (type, d) => type === "task-completed" && (d as { taskId: string }).taskId === taskId,
      );
      expect(event).toMatchObject({ taskId, status: "completed" });
      expect(await task()).toMatchObject({ status: "completed", attempt: 2 });
    } finally {
      c.child.kill("SIGTERM");
      await close();
    }
  });
});
