import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createPipeline, type RequestLog } from "./node-server.server";
import {
  currentRequestId,
  isSaneRequestId,
  resolveRequestId,
  runWithRequestId,
  tagConsole,
} from "./request-id.server";
import type { RequestInfo } from "./request-info.server";
import { staticFiles } from "./static-files.server";

// Request ids on the production request path (decision 026), on a real socket with a stand-in
// for React Router: every answer says X-Request-Id, the log line and the handler see the same id,
// and an id from outside is taken only from a trusted proxy, and only when it is sane.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Seen = { given: string; current: string | undefined; later: string | undefined };
let logs: RequestLog[] = [];
let seen: Seen[] = [];
let errors: { error: unknown; requestId: string }[] = [];

async function app(request: Request, { requestId }: RequestInfo): Promise<Response> {
  const path = new URL(request.url).pathname;
  const current = currentRequestId();
  // Deep code, after a hop through the event loop: still the request's id.
  const later = await new Promise<string | undefined>((r) => setTimeout(() => r(currentRequestId()), 1));
  seen.push({ given: requestId, current, later });
  if (path === "/boom") throw new Error("boom");
  if (path === "/log") {
    await new Promise((r) => setImmediate(r));
    console.error("something failed deep down");
  }
  if (path === "/busy") return new Response("slow down", { status: 429, headers: { "Retry-After": "5" } });
  if (path === "/missing") return new Response("not found", { status: 404 });
  return new Response("ok", { headers: { "X-Request-Id": requestId } });
}

function start(trustProxy: number) {
  const client = mkdtempSync(join(tmpdir(), "client-"));
  writeFileSync(join(client, "favicon.ico"), Buffer.alloc(10, 1));
  const listener = createPipeline({
    trustProxy,
    isAllowedHost: () => true, // the Host rule: node-server.test.ts
    log: (entry) => logs.push(entry),
    readiness: async () => ({ ready: true }),
    staticFiles: staticFiles(client),
    serveRaw(req, res) {
      if (req.url !== "/api/events") return false;
      // The event stream answers on the socket: writeHead with its own headers.
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.end(`data: ${currentRequestId()}\n\n`);
      return true;
    },
    handle: app,
    onError: (error, requestId) => errors.push({ error, requestId }),
  });
  return createServer(listener);
}

const servers: Record<"direct" | "proxied", { server: Server; base: string }> = {} as never;

beforeAll(async () => {
  for (const [name, trust] of [
    ["direct", 0],
    ["proxied", 1],
  ] as const) {
    const server = start(trust);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers[name] = { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }
});
afterAll(async () => {
  for (const { server } of Object.values(servers))
    await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  logs = [];
  seen = [];
  errors = [];
});

type Answer = { status: number; headers: IncomingHttpHeaders; body: string };

function send(
  to: "direct" | "proxied",
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: string,
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${servers[to].base}${path}`, { method, headers }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the request id on every answer", () => {
  it.each([
    ["a page or API answer", "/page", 200],
    ["an app 404", "/missing", 404],
    ["a 429", "/busy", 429],
    ["a static file", "/favicon.ico", 200],
    ["/healthz", "/healthz", 200],
    ["the event stream served on the socket", "/api/events", 200],
    ["an unexpected error (500)", "/boom", 500],
  ])("%s carries a fresh X-Request-Id, the one logged", async (_name, path, status) => {
    const res = await send("direct", path);
    expect(res.status).toBe(status);
    const id = res.headers["x-request-id"];
    expect(id).toMatch(UUID);
    await expect.poll(() => logs.length).toBe(1);
    expect(logs[0]).toMatchObject({ url: path, status, requestId: id });
  });

  it("gives each request its own id, and the app runs under it, past awaits and timers", async () => {
    const a = await send("direct", "/page");
    const b = await send("direct", "/page");
    expect(a.headers["x-request-id"]).not.toBe(b.headers["x-request-id"]);
    expect(seen).toEqual([
      {
        given: a.headers["x-request-id"],
        current: a.headers["x-request-id"],
        later: a.headers["x-request-id"],
      },
      {
        given: b.headers["x-request-id"],
        current: b.headers["x-request-id"],
        later: b.headers["x-request-id"],
      },
    ]);
  });

  it("names the request of an unexpected error in the error log", async () => {
    const res = await send("direct", "/boom");
    expect(errors).toEqual([{ error: expect.any(Error), requestId: res.headers["x-request-id"] }]);
  });

  it("answers refusals before React Router with an id too: a bad target, a foreign origin, a body too large", async () => {
    const target = await new Promise<Answer>((resolve, reject) => {
      const { hostname, port } = new URL(servers.direct.base);
      const req = httpRequest({ hostname, port, path: "*", method: "OPTIONS" }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: "" }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(target.status).toBe(400);
    expect(target.headers["x-request-id"]).toMatch(UUID);
    const foreign = await send("direct", "/page", { Origin: "http://evil.test" }, "POST", "a=1");
    expect(foreign.status).toBe(403);
    expect(foreign.headers["x-request-id"]).toMatch(UUID);
    const big = await send(
      "direct",
      "/page",
      { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
      "POST",
      "x".repeat(3_000_000),
    ).catch(() => null);
    // The 413 may race the upload (the socket closes); when it arrives, it names the request.
    if (big) expect(big.headers["x-request-id"]).toMatch(UUID);
  });
});

describe("an incoming X-Request-Id", () => {
  it("is ignored without a trusted proxy (TRUST_PROXY=0): the client does not choose its id", async () => {
    const res = await send("direct", "/page", { "X-Request-Id": "chosen-by-client-1234" });
    expect(res.headers["x-request-id"]).toMatch(UUID);
    await expect.poll(() => logs.length).toBe(1);
    expect(logs[0]!.requestId).toBe(res.headers["x-request-id"]);
    expect(seen[0]!.given).toBe(res.headers["x-request-id"]);
  });

  it("is honoured behind a trusted proxy, on the answer, the log line and in the app", async () => {
    const res = await send("proxied", "/page", { "X-Request-Id": "edge-4bf92f3577b34da6a3ce929d0e0e4736" });
    expect(res.headers["x-request-id"]).toBe("edge-4bf92f3577b34da6a3ce929d0e0e4736");
    await expect.poll(() => logs.length).toBe(1);
    expect(logs[0]!.requestId).toBe("edge-4bf92f3577b34da6a3ce929d0e0e4736");
    expect(seen[0]).toMatchObject({ given: "edge-4bf92f3577b34da6a3ce929d0e0e4736" });
  });

  it.each([
    ["too long", "a".repeat(129)],
    ["with a space", "abc def"],
    ["with a quote", 'abc"def'],
    ["with a comma (two ids)", "abc,def"],
    ["a spreadsheet formula", "=HYPERLINK(1)"],
    ["starting with a dash", "-abc"],
    ["non-ASCII (Latin-1 bytes)", "abc\u00e9"],
    ["empty", ""],
  ])("is replaced by a fresh id when it is %s, even behind a trusted proxy", async (_name, value) => {
    const res = await send("proxied", "/page", { "X-Request-Id": value });
    expect(res.headers["x-request-id"]).toMatch(UUID);
    await expect.poll(() => logs.length).toBe(1);
    expect(logs[0]!.requestId).toBe(res.headers["x-request-id"]);
  });

  it("accepts the longest sane id and no CR/LF, so no header or log line can be injected", () => {
    expect(resolveRequestId("b".repeat(128), 1)).toBe("b".repeat(128));
    expect(resolveRequestId("abc\r\nSet-Cookie: x=1", 1)).toMatch(UUID);
    expect(resolveRequestId('abc\n{"level":60}', 1)).toMatch(UUID);
    expect(resolveRequestId(["first-id-1", "second-id-2"], 1)).toBe("first-id-1");
    expect(resolveRequestId(undefined, 1)).toMatch(UUID);
    expect(isSaneRequestId("Root=1-67891233-abcdef012345678912345678")).toBe(false);
    expect(isSaneRequestId("1-67891233-abcdef012345678912345678")).toBe(true);
  });
});

describe("log lines during a request", () => {
  it("console.error from deep code names the request's id", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await send("direct", "/log");
      expect(spy).toHaveBeenCalledWith(
        `[requestId=${res.headers["x-request-id"]}]`,
        "something failed deep down",
      );
      await expect.poll(() => logs.length).toBe(1);
      expect(logs[0]!.requestId).toBe(res.headers["x-request-id"]);
    } finally {
      spy.mockRestore();
    }
  });

  it("tags inside a request only, and leaves lines outside any request alone", () => {
    const lines: unknown[][] = [];
    const target = {
      error: (...a: unknown[]) => lines.push(["error", ...a]),
      warn: (...a: unknown[]) => lines.push(["warn", ...a]),
      info: (...a: unknown[]) => lines.push(["info", ...a]),
      log: (...a: unknown[]) => lines.push(["log", ...a]),
      debug: (...a: unknown[]) => lines.push(["debug", ...a]),
    };
    tagConsole(target);
    tagConsole(target); // idempotent: one prefix, not two
    target.error("outside");
    runWithRequestId("req-1", () => {
      target.error("inside", 1);
      target.warn("careful");
    });
    runWithRequestId(null, () => target.info("a task without a request"));
    expect(lines).toEqual([
      ["error", "outside"],
      ["error", "[requestId=req-1]", "inside", 1],
      ["warn", "[requestId=req-1]", "careful"],
      ["info", "a task without a request"],
    ]);
  });
});
