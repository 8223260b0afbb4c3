import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { productionServerArgs } from "../scripts/server-command";
import { PASSWORD, setupDatabase } from "./helpers";

// SIGTERM on the compiled production server (docs/operations.md, "Draining"): /readyz turns 503 at
// once, requests are still served for DRAIN_MS with `Connection: close`, then the process stops and
// exits 0; a second signal skips the rest of the drain. Needs a production build
// (PRODUCTION_BUILD_DIR or TWO_INSTANCE_BUILD_DIR, as test/production-server.test.ts).
const BUILD_DIR = process.env.PRODUCTION_BUILD_DIR ?? process.env.TWO_INSTANCE_BUILD_DIR ?? "";
const built = BUILD_DIR !== "" && existsSync(resolve(BUILD_DIR, "server/index.js"));

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on("error", fail);
  });
}

type Instance = { url: string; child: ChildProcess; output: string[]; exit: Promise<number | null> };

async function startServer(drainMs: number): Promise<Instance> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, productionServerArgs(BUILD_DIR), {
    env: {
      ...process.env,
      NODE_ENV: "production",
      BUILD_DIR,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: url,
      SESSION_SECRET: "draining-test-secret",
      LOG_LEVEL: "info",
      DRAIN_MS: String(drainMs),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (d) => output.push(String(d)));
  child.stderr!.on("data", (d) => output.push(String(d)));
  const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the server exited: ${output.join("")}`);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    },
    { timeout: 30_000, interval: 200 },
  );
  return { url, child, output, exit };
}

/** One GET with node's own client: fetch hides the Connection header. */
function get(url: string) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((done, fail) => {
    const req = httpRequest(url, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => done({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

// The drain is the process's, not the database's: the SQLite project runs it (once per run).
describe.skipIf(!built || process.env.TEST_DATABASE === "postgres")(
  "draining on SIGTERM (the compiled production server)",
  () => {
    let instance: Instance | undefined;

    beforeAll(async () => {
      await setupDatabase();
    });

    afterEach(() => {
      if (instance && instance.child.exitCode === null) instance.child.kill("SIGKILL");
      instance = undefined;
    });

    it("fails readiness at once, keeps serving with Connection: close for DRAIN_MS, then exits 0", async () => {
      const drainMs = 3_000;
      instance = await startServer(drainMs);
      const { url, child, output, exit } = instance;
      expect((await get(`${url}/login`)).connection).toBe("keep-alive");
      // An open event stream, which the stop ends (its socket, kept alive by the client, then closes too).
      const login = await fetch(`${url}/login`, {
        method: "POST",
        body: new URLSearchParams({ email: "root@example.test", password: PASSWORD }),
        redirect: "manual",
      });
      const cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const stream = await fetch(`${url}/api/events`, { headers: { Cookie: cookie } });
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      const reader = stream.body!.getReader();
      const streamEnded = (async () => {
        for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return performance.now();
      })();

      const signalled = performance.now();
      child.kill("SIGTERM");
      await vi.waitFor(
        async () => {
          const ready = await get(`${url}/readyz`);
          expect(ready.status).toBe(503);
          expect(JSON.parse(ready.body)).toEqual({ ready: false, reason: "draining" });
        },
        { timeout: 2_000, interval: 20 },
      );
      const live = await get(`${url}/healthz`);
      expect(live.status).toBe(200);
      expect(JSON.parse(live.body)).toEqual({ ok: true });
      // Still serving, on connections that close after their answer.
      const page = await get(`${url}/login`);
      expect(page.status).toBe(200);
      expect(page.connection).toBe("close");
      expect(child.exitCode).toBeNull();

      expect(await exit).toBe(0);
      // It served through the drain: the stream ended and the process exited no earlier than DRAIN_MS
      // after the signal, and soon after it (no wait for sockets the clients keep alive).
      expect((await streamEnded) - signalled).toBeGreaterThanOrEqual(drainMs - 100);
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(drainMs - 100);
      expect(performance.now() - signalled).toBeLessThan(drainMs + 3_000);
      const log = output.join("");
      expect(log).toContain('"drainMs":3000');
      expect(log).toContain('"failedSteps":[]');
    }, 60_000);

    it("ends the drain at a second signal", async () => {
      instance = await startServer(120_000);
      const { url, child, output, exit } = instance;
      child.kill("SIGTERM");
      await vi.waitFor(async () => expect((await get(`${url}/readyz`)).status).toBe(503), {
        timeout: 2_000,
        interval: 20,
      });
      const second = performance.now();
      child.kill("SIGINT");
      expect(await exit).toBe(0);
      // Far sooner than the two minutes of the drain.
      expect(performance.now() - second).toBeLessThan(30_000);
      expect(output.join("")).toContain("second signal: ending the drain now");
    }, 60_000);
  },
);
