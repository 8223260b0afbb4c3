import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, sessionCookieFor, setupDatabase } from "./helpers";

// OpenTelemetry over OTLP/HTTP (DESIGN §6, "Tracing"): the compiled server sends its spans to an
// in-process receiver, and one POST /api/tasks is one trace holding the request, the task's run,
// its completion webhook and the event pushed to its owner. Runs where the production build is
// known to be fresh, as test/production-server.test.ts does.
const BUILD_DIR = process.env.PRODUCTION_BUILD_DIR ?? process.env.TWO_INSTANCE_BUILD_DIR ?? "";
const compiled = resolve(BUILD_DIR, "server.js");

type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string };
const spans: OtlpSpan[] = [];
/** OTLP/JSON's ids are hex; a base64 one (the protobuf mapping) is read as hex too. */
const hex = (id: string) => (/^[0-9a-f]*$/.test(id) ? id : Buffer.from(id, "base64").toString("hex"));

function receiver(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const sent = JSON.parse(body) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const r of sent.resourceSpans)
        for (const s of r.scopeSpans)
          for (const span of s.spans)
            spans.push({ ...span, traceId: hex(span.traceId), spanId: hex(span.spanId) });
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, "127.0.0.1", done));
  const { port } = s.address() as AddressInfo;
  await new Promise((done) => s.close(done));
  return port;
}

describe.skipIf(!BUILD_DIR || !existsSync(compiled))("traces", () => {
  let child: ChildProcess;
  let collector: Server;
  let url: string;
  const output: string[] = [];

  beforeAll(async () => {
    await setupDatabase();
    collector = await receiver();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [compiled], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        BUILD_DIR,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: url,
        DRAIN_MS: "0",
        LOG_LEVEL: "info",
        TASK_DEMO_DURATION_MS: "20",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_BSP_SCHEDULE_DELAY: "100",
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

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await new Promise((done) => collector?.close(done));
  });

  it("one POST /api/tasks: the request, the run, the completion webhook and the event push in one trace", async () => {
    const user = await createUser({ roles: ["admin"] });
    const cookie = await sessionCookieFor(user.id);
    const started = await fetch(`${url}/api/tasks`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        "Content-Type": "application/json",
        Origin: url,
        "Sec-Fetch-Site": "same-origin",
      },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 20 } }),
    });
    expect(started.status, output.join("")).toBe(202);
    const { taskId } = (await started.json()) as { taskId: string };
    await vi.waitFor(
      async () => {
        const task = (await (
          await fetch(`${url}/api/tasks/${taskId}`, { headers: { Cookie: cookie } })
        ).json()) as {
          status: string;
        };
        expect(task.status).toBe("completed");
      },
      { timeout: 20_000, interval: 100 },
    );
    await vi.waitFor(
      () => {
        const request = spans.find((s) => s.name === "POST /api/tasks");
        expect(request).toBeDefined();
        const names = spans.filter((s) => s.traceId === request!.traceId).map((s) => s.name);
        expect(names).toEqual(
          expect.arrayContaining([
            "task.run report.generate",
            "task.webhook",
            "task.completion",
            "event.push task-completed",
          ]),
        );
        // Its queries are in it too, named by statement, never by the values sent.
        expect(names.some((n) => n.startsWith("db insert"))).toBe(true);
      },
      { timeout: 15_000, interval: 100 },
    );
    // The trace id stands beside the request id in the request's log line.
    const request = spans.find((s) => s.name === "POST /api/tasks")!;
    expect(output.join("")).toContain(request.traceId);
  });

  it("ignores a traceparent sent without a trusted proxy, and names a span by the route, not the URL", async () => {
    const forged = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const user = await createUser({ roles: ["admin"] });
    const cookie = await sessionCookieFor(user.id);
    await fetch(`${url}/api/users/${user.id}/roles`, { headers: { Cookie: cookie, traceparent: forged } });
    await vi.waitFor(() => expect(spans.some((s) => s.name === "GET /api/users/:id/roles")).toBe(true), {
      timeout: 10_000,
      interval: 100,
    });
    expect(spans.filter((s) => s.traceId === "0af7651916cd43dd8448eb211c80319c")).toEqual([]);
    expect(spans.some((s) => s.name.includes(user.id))).toBe(false);
  });
});
