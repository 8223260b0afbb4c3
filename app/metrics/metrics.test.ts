import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AppServer, startApp } from "../../test/app-server";
import { createUser, PASSWORD, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { deliverThroughRoute } from "../../test/tasks";
import { createPipeline, type RequestLog } from "../http/node-server.server";
import { defineTask, TaskError } from "../tasks/definition.server";
import { DeliveryError } from "../tasks/delivery.server";
import { insertTask } from "../tasks/repository.server";
import { InProcessTaskRunner } from "../tasks/runner.server";
import type * as Endpoint from "./endpoint.server";
import { resetMetrics } from "./metrics.server";

// GET /metrics through server.ts's request path (the node:http pipeline on a real socket) in front
// of the real app (routes, root middleware, database): who may scrape, what is on the page, and
// that route labels are patterns. The registry is one per process, so the app's module instance
// (test/app-server.ts) and this file's record into the same metrics.

const TOKEN = "metrics-token-0123456789abcdef";
// Small enough to reach with a few sign-in attempts from one address.
process.env.RATE_LIMIT_LOGIN_PER_IP = "3";

let app: AppServer;
let endpoint: typeof Endpoint;
let server: Server;
let base: string;
let logs: RequestLog[] = [];

/** Sets METRICS_TOKEN for the app's instance (it reads the environment per scrape, through its cache). */
async function setToken(token: string | undefined) {
  if (token === undefined) delete process.env.METRICS_TOKEN;
  else process.env.METRICS_TOKEN = token;
  const envModule = await app.module<typeof import("../env.server")>("app/env.server.ts");
  envModule.resetEnvCache();
}

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  endpoint = await app.module<typeof Endpoint>("app/metrics/endpoint.server.ts");
  server = createServer(
    createPipeline({
      trustProxy: 0,
      isAllowedHost: () => true, // the Host rule: node-server.test.ts
      log: (entry) => logs.push(entry),
      readiness: async () => ({ ready: true }),
      handle: (request, info) => app.handle(request, info),
      metrics: endpoint.metricsEndpoint,
      onError: () => {},
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await app.close();
  delete process.env.METRICS_TOKEN;
});
beforeEach(async () => {
  logs = [];
  resetMetrics();
  await setToken(TOKEN);
  const rateLimits = await app.module<typeof import("../security/rate-limit.server")>(
    "app/security/rate-limit.server.ts",
  );
  await rateLimits.resetRateLimits();
});

function scrape(headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }, path = "/metrics") {
  return fetch(`${base}${path}`, { headers });
}

/**
 * The page's metric families by name. The parser folds every series of a histogram into one (it
 * keeps only unlabelled ones), so each histogram's `_count` and `_bucket` lines are also parsed on
 * their own as plain families ("<name>_count", "<name>_bucket", the latter with `le` as a label).
 */
async function families(): Promise<Map<string, PrometheusFamily>> {
  const res = await scrape();
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const parsed = parsePrometheusTextFormat(text);
  const all = new Map(parsed.map((f) => [f.name, f]));
  for (const family of parsed.filter((f) => f.type === "HISTOGRAM")) {
    for (const suffix of ["_count", "_bucket"]) {
      const name = family.name + suffix;
      const lines = text.split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
      const [series] = parsePrometheusTextFormat(`# TYPE ${name} gauge\n${lines.join("\n")}\n`);
      if (series) all.set(name, series);
    }
  }
  return all;
}

function sample(family: PrometheusFamily | undefined, labels: Record<string, string>) {
  return family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

const value = (family: PrometheusFamily | undefined, labels: Record<string, string> = {}) =>
  Number(sample(family, labels)?.value ?? Number.NaN);

function signInForm(email: string, password: string) {
  return fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: base,
      "Sec-Fetch-Site": "same-origin",
    },
    body: new URLSearchParams({ email, password }),
  });
}

describe("who may scrape /metrics", () => {
  it("answers the token only, 401 without it or with a wrong one, and 404 on the main port when off", async () => {
    expect((await scrape()).status).toBe(200);
    const none = await scrape({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await none.text()).not.toContain("dashboard_");
    expect((await scrape({ Authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await scrape({ Authorization: `Bearer ${TOKEN.slice(0, -1)}` })).status).toBe(401);
    expect((await scrape({ Authorization: `Basic ${TOKEN}` })).status).toBe(401);
    // The token in the URL is not the token.
    expect((await scrape({}, `/metrics?token=${TOKEN}`)).status).toBe(401);

    await setToken(undefined);
    const off = await scrape();
    expect(off.status).toBe(404);
    expect(await off.text()).not.toContain("dashboard_");
  });

  it("reads METRICS_TOKEN (16 characters at least, never echoed) and METRICS_PORT from the environment", async () => {
    const { env, resetEnvCache } = await import("../env.server");
    const saved = { ...process.env };
    try {
      process.env.METRICS_TOKEN = "too-short-secret";
      process.env.METRICS_PORT = "9464";
      resetEnvCache();
      expect(env()).toMatchObject({ METRICS_TOKEN: "too-short-secret", METRICS_PORT: 9464 });
      process.env.METRICS_TOKEN = "short-secret";
      resetEnvCache();
      const error = (() => {
        try {
          env();
        } catch (e) {
          return String(e);
        }
      })();
      expect(error).toContain("METRICS_TOKEN must be at least 16 characters long");
      expect(error).not.toContain("short-secret");
      process.env.METRICS_TOKEN = "";
      process.env.METRICS_PORT = "not-a-port";
      resetEnvCache();
      expect(() => env()).toThrow();
      process.env.METRICS_PORT = " ";
      resetEnvCache();
      expect(env().METRICS_TOKEN).toBeUndefined();
      expect(env().METRICS_PORT).toBeUndefined();
    } finally {
      process.env = saved;
      resetEnvCache();
    }
  });

  it("compares the token whole and in constant time", () => {
    expect(endpoint.tokenMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(endpoint.tokenMatches(`bearer  ${TOKEN}`, TOKEN)).toBe(true);
    expect(endpoint.tokenMatches(undefined, TOKEN)).toBe(false);
    expect(endpoint.tokenMatches("Bearer ", TOKEN)).toBe(false);
    expect(endpoint.tokenMatches(`Bearer ${TOKEN} extra`, TOKEN)).toBe(false);
    expect(endpoint.tokenMatches(TOKEN, TOKEN)).toBe(false);
  });

  it("never writes the token to the request log", async () => {
    await scrape();
    await scrape({ Authorization: `Bearer ${TOKEN}-wrong` });
    await scrape({}, `/metrics?token=${TOKEN}`);
    await scrape({}, `/metrics?access_token=${TOKEN}&x=1`);
    await expect.poll(() => logs.length).toBe(4);
    expect(logs.map((l) => l.status)).toEqual([200, 401, 401, 401]);
    expect(JSON.stringify(logs)).not.toContain(TOKEN);
  });

  it("serves METRICS_PORT on 127.0.0.1 only, without a token, /metrics and nothing else", async () => {
    expect(await endpoint.startMetricsListener(undefined)).toBeUndefined();
    const loopback = (await endpoint.startMetricsListener(0))!;
    try {
      const address = loopback.address() as AddressInfo;
      expect(address.address).toBe("127.0.0.1");
      const res = await fetch(`http://127.0.0.1:${address.port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("dashboard_process_cpu_seconds_total");
      expect((await fetch(`http://127.0.0.1:${address.port}/`)).status).toBe(404);
      // DNS rebinding: a foreign Host on the loopback port is refused.
      const rebound = await new Promise<number>((resolve, reject) => {
        httpRequest(
          { host: "127.0.0.1", port: address.port, path: "/metrics", headers: { Host: "evil.example:80" } },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        )
          .on("error", reject)
          .end();
      });
      expect(rebound).toBe(404);
      expect((await fetch(`http://127.0.0.1:${address.port}/metrics`, { method: "POST" })).status).toBe(405);
      // Not on the machine's other addresses: nothing answers there.
      const other = Object.values((await import("node:os")).networkInterfaces())
        .flat()
        .find((i) => i && i.family === "IPv4" && !i.internal);
      if (other) {
        await expect(fetch(`http://${other.address}:${address.port}/metrics`)).rejects.toThrow();
      }
    } finally {
      await new Promise<void>((resolve) => loopback.close(() => resolve()));
    }
  });
});

describe("what /metrics shows", () => {
  it("labels request durations by route pattern and status class, never by URL", async () => {
    const admin = await createUser({ roles: ["super_admin"] });
    const cookie = await sessionCookieFor(admin.id);
    const shown = await fetch(`${base}/dashboard/users/${admin.id}`, { headers: { Cookie: cookie } });
    expect(shown.status).toBe(200);
    const data = await fetch(
      `${base}/dashboard/users/${admin.id}.data?_routes=routes%2Fdashboard.users.%24id`,
      { headers: { Cookie: cookie } },
    );
    expect(data.status).toBe(200);
    expect((await fetch(`${base}/no/such/page/4711`)).status).toBe(404);
    expect((await fetch(`${base}/api/tasks/${admin.id}`, { headers: { Cookie: cookie } })).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // A Host no URL can be built from: answered before any route.
    const bad = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/dashboard`, { headers: { Host: "a b" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(bad).toBe(400);
    await expect.poll(() => logs.length).toBe(6);

    const all = await families();
    expect(all.get("dashboard_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    const http = all.get("dashboard_http_request_duration_seconds_count");
    const count = (route: string, status: string) => value(http, { route, status });
    expect(count("/dashboard/users/:id", "2xx")).toBe(2);
    expect(count("/*", "4xx")).toBe(1);
    expect(count("/api/tasks/:id", "4xx")).toBe(1);
    expect(count("/healthz", "2xx")).toBe(1);
    expect(count("unmatched", "4xx")).toBe(1);
    const buckets = all.get("dashboard_http_request_duration_seconds_bucket");
    expect(value(buckets, { route: "/dashboard/users/:id", status: "2xx", le: "+Inf" })).toBe(2);

    const patterns = new Set(app.routes.map((r) => r.path));
    const labels = new Set(http!.metrics.map((m) => m.labels!.route!));
    for (const label of labels) {
      expect(label).not.toContain(admin.id);
      expect(label).not.toContain("4711");
      expect(patterns.has(label) || ["unmatched", "static", "/healthz", "/metrics"].includes(label)).toBe(
        true,
      );
    }
    for (const m of http!.metrics) expect(m.labels!.status).toMatch(/^[1-5]xx$/);
  });

  it("counts sign-ins, refusals by the rate limiter, tasks, webhooks, queue depth, streams and queries", async () => {
    const user = await createUser({ roles: ["user"] });
    expect((await signInForm(user.email, "wrong password")).status).toBe(400);
    expect((await signInForm(user.email, PASSWORD)).status).toBe(302);
    expect((await signInForm(user.email, "wrong again")).status).toBe(400);
    expect((await signInForm(user.email, PASSWORD)).status).toBe(429);

    // A task whose completion webhook fails once and is then delivered.
    const definition = defineTask({
      type: "test.metrics",
      payload: z.unknown(),
      run: async () => ({ ok: 1 }),
    });
    let refused = false;
    const runner = new InProcessTaskRunner({
      retryDelaysMs: [0],
      definitions: (type) => (type === definition.type ? definition : undefined),
      deliver: async (completion) => {
        if (!refused) {
          refused = true;
          throw new DeliveryError(503);
        }
        await deliverThroughRoute(completion);
      },
      log: () => {},
    });
    const done = await insertTask({ type: definition.type, userId: user.id, payload: null });
    runner.dispatch(done);
    await runner.idle();
    // A task that fails, whose webhook is refused for good: its outcome is recorded directly.
    const failing = defineTask({
      type: "test.metrics-fails",
      payload: z.unknown(),
      run: async () => {
        throw new TaskError("no luck");
      },
    });
    const refusing = new InProcessTaskRunner({
      definitions: (type) => (type === failing.type ? failing : undefined),
      deliver: async () => {
        throw new DeliveryError(400);
      },
      log: () => {},
    });
    refusing.dispatch(await insertTask({ type: failing.type, userId: user.id, payload: null }));
    await refusing.idle();
    // One left waiting: the queue depth.
    await insertTask({ type: definition.type, userId: user.id, payload: null });

    // An open event stream, and one event delivered to it.
    const cookie = await sessionCookieFor(user.id);
    const controller = new AbortController();
    const stream = await fetch(`${base}/api/events`, {
      headers: { Cookie: cookie },
      signal: controller.signal,
    });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const reader = stream.body!.getReader();
    await reader.read(); // the opening ping
    const bus = await app.module<typeof import("../events/bus.server")>("app/events/bus.server.ts");
    const { SYSTEM_EVENT_CHANNEL } = await import("../events/event-types");
    bus.systemBus().publish(SYSTEM_EVENT_CHANNEL, {
      type: "task-completed",
      userId: user.id,
      taskId: done,
      status: "completed",
    });
    // After the stream's starting id (a ping of its own), the event.
    let received = "";
    while (!received.includes("task-completed"))
      received += new TextDecoder().decode((await reader.read()).value);
    expect(received).toContain("task-completed");

    const all = await families();
    controller.abort();

    const signIns = all.get("dashboard_sign_ins_total");
    expect(value(signIns, { method: "password", outcome: "failed" })).toBe(2);
    expect(value(signIns, { method: "password", outcome: "succeeded" })).toBe(1);
    expect(value(all.get("dashboard_rate_limit_refusals_total"), { limit: "loginPerIp" })).toBe(1);

    expect(value(all.get("dashboard_tasks_total"), { type: "test.metrics", status: "completed" })).toBe(1);
    expect(all.get("dashboard_task_run_duration_seconds")?.type).toBe("HISTOGRAM");
    const runs = all.get("dashboard_task_run_duration_seconds_count");
    expect(value(runs, { type: "test.metrics", status: "completed" })).toBe(1);
    expect(value(all.get("dashboard_tasks_total"), { type: "test.metrics-fails", status: "failed" })).toBe(1);
    expect(value(all.get("dashboard_webhook_deliveries_total"), { outcome: "delivered" })).toBe(1);
    expect(value(all.get("dashboard_webhook_deliveries_total"), { outcome: "failed" })).toBe(1);
    expect(value(all.get("dashboard_webhook_retries_total"))).toBe(1);
    expect(value(all.get("dashboard_task_queue_depth"), { status: "pending" })).toBe(1);
    expect(value(all.get("dashboard_task_queue_depth"), { status: "processing" })).toBe(0);

    expect(value(all.get("dashboard_sse_open_streams"))).toBe(1);
    expect(value(all.get("dashboard_sse_events_delivered_total"))).toBe(1);

    expect(all.get("dashboard_db_query_duration_seconds")?.type).toBe("HISTOGRAM");
    expect(value(all.get("dashboard_db_query_duration_seconds_count"), { outcome: "ok" })).toBeGreaterThan(5);

    for (const name of [
      "dashboard_mails_total",
      "dashboard_process_cpu_seconds_total",
      "dashboard_process_resident_memory_bytes",
      "dashboard_nodejs_eventloop_lag_seconds",
      "dashboard_nodejs_heap_size_used_bytes",
    ]) {
      expect(all.has(name), name).toBe(true);
    }
  });

  it("counts emails sent and failed", async () => {
    const { sendEmail } = await import("../mail/send-email.server");
    const { resetEnvCache } = await import("../env.server");
    const { clearSystemConfigCache } = await import("../system-settings/system-config.server");
    const email = { to: "someone@example.test", type: "verification", actionUrl: "http://x.test/a" } as const;
    await sendEmail(email); // the development outbox: no MAIL_API_KEY
    // A provider that cannot be reached.
    process.env.MAIL_API_KEY = "unreachable-provider-key";
    process.env.MAIL_API_URL = "http://127.0.0.1:9/";
    resetEnvCache();
    clearSystemConfigCache();
    try {
      await expect(sendEmail(email)).rejects.toThrow();
    } finally {
      delete process.env.MAIL_API_KEY;
      delete process.env.MAIL_API_URL;
      resetEnvCache();
      clearSystemConfigCache();
    }
    const all = await families();
    expect(value(all.get("dashboard_mails_total"), { outcome: "sent" })).toBe(1);
    expect(value(all.get("dashboard_mails_total"), { outcome: "failed" })).toBe(1);
  });
});

describe("recording never throws", () => {
  it("counts a recorder that failed (a polluted prototype made prom-client throw: issue 34) instead of throwing", async () => {
    const { signIn, observeRequest, taskFinished } = await import("./metrics.server");
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = "yes";
    try {
      expect(() => signIn("password", true)).not.toThrow();
      expect(() => observeRequest("/issue-34", 200, 1)).not.toThrow();
      expect(() => taskFinished("report.generate", "completed", 1)).not.toThrow();
    } finally {
      delete proto.polluted;
    }
    const all = await families();
    expect(value(all.get("dashboard_metric_recording_errors_total"), {})).toBeGreaterThanOrEqual(2);
  });
});
