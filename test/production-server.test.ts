import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../app/db.server";
import { PASSWORD, setupDatabase } from "./helpers";

// The compiled production server (`npm run build` writes BUILD_DIR/server.js; `npm start` runs it
// with plain node): what only the whole process shows. It runs where the build is known to be
// fresh: `npm test`'s PostgreSQL pass, after its build (TWO_INSTANCE_BUILD_DIR), or when
// PRODUCTION_BUILD_DIR names one.
const BUILD_DIR = process.env.PRODUCTION_BUILD_DIR ?? process.env.TWO_INSTANCE_BUILD_DIR ?? "";
const compiled = resolve(BUILD_DIR, "server.js");
const ADMIN = "root@example.test"; // seeded by setupDatabase()
const METRICS_TOKEN = "production-metrics-token-0123456789";

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on("error", fail);
  });
}

describe.skipIf(!BUILD_DIR || !existsSync(compiled))("the compiled production server", () => {
  let child: ChildProcess;
  let url: string;
  let metricsPort: number;
  const output: string[] = [];
  const exited = () => new Promise<number | null>((r) => child.once("exit", (code) => r(code)));

  beforeAll(async () => {
    await setupDatabase();
    const port = await freePort();
    metricsPort = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [compiled], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        BUILD_DIR,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: url,
        SESSION_SECRET: "production-server-test-secret",
        // No balancer to drain away from; test/draining.test.ts covers the drain.
        DRAIN_MS: "0",
        LOG_LEVEL: "info",
        METRICS_TOKEN,
        METRICS_PORT: String(metricsPort),
        ALLOWED_HOSTS: "dash.example.test",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => output.push(String(d)));
    child.stderr!.on("data", (d) => output.push(String(d)));
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the server exited: ${output.join("")}`);
        expect((await fetch(`${url}/healthz`)).ok).toBe(true);
      },
      { timeout: 30_000, interval: 200 },
    );
  }, 60_000);

  afterAll(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("serves hashed assets as immutable and the app behind them", async () => {
    const asset = readdirSync(join(BUILD_DIR, "client/assets")).find((f) => f.endsWith(".js"))!;
    const res = await fetch(`${url}/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(`${url}/api/ping`)).status).toBe(200);
    expect((await fetch(`${url}/login`)).headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("logs requests with their secrets redacted", async () => {
    await fetch(`${url}/api/auth/verify-email?token=very-secret-token`, { redirect: "manual" });
    await vi.waitFor(() => expect(output.join("")).toContain("verify-email?token=[redacted]"), {
      timeout: 5_000,
    });
    expect(output.join("")).not.toContain("very-secret-token");
  });

  it("serves /metrics to the token and on 127.0.0.1:METRICS_PORT, labelled by route pattern, token never logged", async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    await fetch(`${url}/dashboard/users/1234567`, { redirect: "manual" });
    const page = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toMatch(
      /dashboard_http_request_duration_seconds_count\{route="\/dashboard\/users\/:id",status="3xx"\} 1/,
    );
    expect(text).toContain('dashboard_http_request_duration_seconds_count{route="static",status="2xx"}');
    expect(text).not.toContain("1234567");
    // The event stream answered on the socket (app/server/http-server.server.ts): counted open, labelled once closed.
    const login = await fetch(`${url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: ADMIN, password: PASSWORD }),
      redirect: "manual",
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const controller = new AbortController();
    const stream = await fetch(`${url}/api/events`, {
      headers: { Cookie: cookie },
      signal: controller.signal,
    });
    await stream.body!.getReader().read();
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(await scrape()).toMatch(/^dashboard_sse_open_streams 1$/m);
    expect(await scrape()).toMatch(/^dashboard_sign_ins_total\{method="password",outcome="succeeded"\} 1$/m);
    // Signing out ends the user's streams from the server's side: the answer finishes and is counted.
    // (A stream the client drops never finishes: like the request log, the histogram skips it.)
    await fetch(`${url}/logout`, { method: "POST", headers: { Cookie: cookie }, redirect: "manual" });
    await vi.waitFor(async () => {
      const after = await scrape();
      expect(after).toMatch(/^dashboard_sse_open_streams 0$/m);
      expect(after).toContain(
        'dashboard_http_request_duration_seconds_count{route="/api/events",status="2xx"} 1',
      );
    });
    const local = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(local.status).toBe(200);
    expect(await local.text()).toContain("dashboard_process_cpu_seconds_total");
    expect(output.join("")).toContain("metrics listening on 127.0.0.1");
    expect(output.join("")).not.toContain(METRICS_TOKEN);
  });

  /** One request with exactly this Host header (fetch sets its own). */
  function withHost(
    host: string,
    path: string,
    init: { method?: string; body?: string; cookie?: string } = {},
  ) {
    return new Promise<{ status: number; body: string; setCookie: string[] }>((resolve, reject) => {
      const target = new URL(url);
      const headers: Record<string, string> = { Host: host };
      if (init.body !== undefined) headers["Content-Type"] = "application/x-www-form-urlencoded";
      if (init.cookie) headers.Cookie = init.cookie;
      const req = httpRequest(
        { host: target.hostname, port: target.port, path, method: init.method ?? "GET", headers },
        (res) => {
          let body = "";
          res.on("data", (c) => {
            body += c;
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body, setCookie: res.headers["set-cookie"] ?? [] }),
          );
        },
      );
      req.on("error", reject);
      req.end(init.body);
    });
  }

  // DNS rebinding: evil.test resolves to this server; its page's requests carry Host: evil.test.
  it("refuses any Host but BASE_URL's and ALLOWED_HOSTS with 400 before anything runs; /healthz answers all", async () => {
    const port = new URL(url).port;
    const sessions = async () => (await db().selectFrom("session").select("id").execute()).length;
    const before = await sessions();
    const signIn = new URLSearchParams({
      email: ADMIN,
      password: PASSWORD,
      note: "body-not-logged",
    }).toString();
    for (const host of [
      `evil.test:${port}`,
      "evil.test",
      `localhost:${port}`,
      "127.0.0.1",
      `127.0.0.1:${Number(port) + 1}`,
    ]) {
      const login = await withHost(host, "/login", { method: "POST", body: signIn });
      expect(login.status, host).toBe(400);
      expect(login.setCookie, host).toEqual([]);
      expect((await withHost(host, "/login")).status, host).toBe(400);
      expect((await withHost(host, "/healthz")).status, host).toBe(200);
    }
    expect(await sessions()).toBe(before);
    expect(output.join("")).not.toContain("body-not-logged");
    // An ALLOWED_HOSTS name on BASE_URL's port is answered like BASE_URL's own.
    const login = await withHost(`dash.example.test:${port}`, "/login", { method: "POST", body: signIn });
    expect(login.status).toBe(302);
    expect(await sessions()).toBe(before + 1);
    expect((await withHost(`dash.example.test:${port}`, "/login")).status).toBe(200);
    expect((await withHost(`127.0.0.1:${port}`, "/login")).status).toBe(200);
  });

  it("stops on SIGTERM: open event streams end and the process exits cleanly", async () => {
    const login = await fetch(`${url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: ADMIN, password: PASSWORD }),
      redirect: "manual",
    });
    expect(login.status).toBe(302);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const stream = await fetch(`${url}/api/events`, { headers: { Cookie: cookie } });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const reader = stream.body!.getReader();
    const ended = (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return true;
    })();
    const exit = exited();
    child.kill("SIGTERM");
    expect(await ended).toBe(true);
    expect(await exit).toBe(0);
    expect(output.join("")).toContain("shutting down");
  }, 30_000);
});
