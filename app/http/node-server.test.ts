import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hostAllowList } from "./allowed-hosts.server";
import { createPipeline, type Readiness, type RequestLog } from "./node-server.server";
import { staticFiles } from "./static-files.server";

// The production request path of server.ts on a real socket, with a stand-in for React Router.

let server: Server;
let base: string;
let logs: RequestLog[] = [];
let seen: { url: string; ip: string; signal?: AbortSignal }[] = [];
let readiness: Readiness = { ready: true };
let draining = false;
let errors: unknown[] = [];
/** What the metrics' recorder throws (a polluted prototype made prom-client do so: issue 34). */
let observeThrows: Error | null = null;

const big = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, text: "some row text" })) });

async function app(request: Request, ip: string): Promise<Response> {
  const url = new URL(request.url);
  seen.push({ url: request.url, ip, signal: request.signal });
  switch (url.pathname) {
    case "/api/small":
      return Response.json({ ok: true });
    case "/api/big":
      return new Response(big, { headers: { "Content-Type": "application/json" } });
    case "/page": {
      const parts = ["<!DOCTYPE html><html><body>", "x".repeat(4000), "</body></html>"];
      const stream = new ReadableStream({
        async pull(controller) {
          const next = parts.shift();
          if (next === undefined) return controller.close();
          await new Promise((r) => setTimeout(r, 5));
          controller.enqueue(new TextEncoder().encode(next));
        },
      });
      return new Response(stream, { headers: { "Content-Type": "text/html; charset=utf-8" } });
    }
    case "/events": {
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("event: hello\ndata: 1\n\n"));
          request.signal.addEventListener("abort", () => controller.close());
        },
      });
      return new Response(stream, { headers: { "Content-Type": "text/event-stream" } });
    }
    case "/sized": {
      // ?n= bytes of JSON, &type= and &cc= for the headers
      const n = Number(url.searchParams.get("n"));
      const headers: Record<string, string> = {
        "Content-Type": url.searchParams.get("type") ?? "application/json",
      };
      if (url.searchParams.get("cc")) headers["Cache-Control"] = url.searchParams.get("cc")!;
      if (url.searchParams.get("ce")) headers["Content-Encoding"] = url.searchParams.get("ce")!;
      return new Response(`"${"z".repeat(n - 2)}"`, { headers });
    }
    case "/database-gone":
      // What pg rejects with when the server went away under a query (db/unavailable.ts).
      throw new Error("Connection terminated unexpectedly");
    case "/bug":
      throw new TypeError("x is undefined");
    case "/echo":
      return new Response(await request.text(), { headers: { "Content-Type": "text/plain" } });
    default:
      return new Response("not found", { status: 404 });
  }
}

beforeAll(async () => {
  const client = mkdtempSync(join(tmpdir(), "client-"));
  mkdirSync(join(client, "assets"));
  const script = `console.log(${JSON.stringify("y".repeat(3000))});`;
  writeFileSync(join(client, "assets", "app-abc123.js"), script);
  // As scripts/build-server.ts writes it beside every client file worth compressing.
  writeFileSync(join(client, "assets", "app-abc123.js.br"), brotliCompressSync(script));
  writeFileSync(join(client, "favicon.ico"), Buffer.alloc(100, 1));
  // BASE_URL is this server's address (its port known once it listens) plus two ALLOWED_HOSTS.
  let allowed: ((host: string) => boolean) | undefined;
  const listener = createPipeline({
    trustProxy: 1,
    isAllowedHost: (host) => {
      allowed ??= hostAllowList({ baseUrl: base, allowedHosts: "Dash.Example.test, 10.0.0.5:8080" });
      return allowed(host);
    },
    log: (entry) => logs.push(entry),
    readiness: async () => readiness,
    draining: () => draining,
    staticFiles: staticFiles(client),
    serveRaw(req, res, ip) {
      if (req.url !== "/raw") return false;
      res.end(`raw ${ip}`);
      return true;
    },
    handle: (request, info) => app(request, info.ip),
    metrics: {
      observe() {
        if (observeThrows) throw observeThrows;
      },
      serve: () => false,
    },
    onError: (error) => errors.push(error),
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  logs = [];
  seen = [];
  readiness = { ready: true };
  draining = false;
  errors = [];
  observeThrows = null;
});

type Answer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/** One request with exactly these headers (fetch would add Accept-Encoding and decode). */
function send(path: string, headers: Record<string, string> = {}, method = "GET", body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the node:http request path", () => {
  it("answers /healthz (liveness) 200 while the process runs, even when it is not ready", async () => {
    readiness = { ready: false, reason: "database" };
    const live = await send("/healthz");
    expect(live.status).toBe(200);
    expect(live.headers["cache-control"]).toBe("no-store");
    expect(JSON.parse(live.body.toString())).toEqual({ ok: true });
    expect(seen).toEqual([]);
  });

  it("answers /readyz from the app's readiness: 200, or 503 with the reason, never cached", async () => {
    const ready = await send("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.headers["cache-control"]).toBe("no-store");
    expect(JSON.parse(ready.body.toString())).toEqual({ ready: true });
    for (const reason of ["draining", "database", "tasks"] as const) {
      readiness = { ready: false, reason };
      const down = await send("/readyz");
      expect(down.status, reason).toBe(503);
      expect(down.headers["cache-control"]).toBe("no-store");
      expect(JSON.parse(down.body.toString())).toEqual({ ready: false, reason });
    }
    expect(logs.map((l) => l.url)).toEqual(["/readyz", "/readyz", "/readyz", "/readyz"]);
    expect(seen).toEqual([]);
  });

  it("says Connection: close on every answer while draining, keep-alive before", async () => {
    expect((await send("/api/small")).headers.connection).toBe("keep-alive");
    draining = true;
    for (const path of ["/api/small", "/page", "/healthz", "/readyz", "/favicon.ico", "/nowhere"])
      expect((await send(path)).headers.connection, path).toBe("close");
  });

  it("answers a request that met an unreachable database 503 with Retry-After; a bug stays 500", async () => {
    const gone = await send("/database-gone");
    expect(gone.status).toBe(503);
    expect(gone.headers["retry-after"]).toBe("2");
    expect((await send("/bug")).status).toBe(500);
  });

  it("refuses a bad Host with 400 and a cross-origin post with 403, before the app", async () => {
    expect((await send("/page", { Host: "a b" })).status).toBe(400);
    const page = await send("/echo", { Origin: "http://evil.test" }, "POST", "x");
    expect(page.status).toBe(403);
    const api = await send("/api/small", { "Sec-Fetch-Site": "cross-site" }, "POST", "x");
    expect(api.status).toBe(403);
    expect(JSON.parse(api.body.toString())).toMatchObject({ error: "forbidden" });
    expect(seen).toEqual([]);
  });

  // DNS rebinding: a page on another name, resolved to this server, must not reach the app.
  it("refuses a Host other than BASE_URL's and ALLOWED_HOSTS with 400 before anything runs", async () => {
    const port = new URL(base).port;
    for (const host of [
      "evil.test",
      `evil.test:${port}`,
      `localhost:${port}`, // a loopback name is not 127.0.0.1 outside development
      "127.0.0.1", // BASE_URL's host on another port
      "127.0.0.1:1",
      `dash.example.test:${Number(port) + 1}`,
      "10.0.0.5", // allowed on 8080 only
      `10.0.0.5:${port}`,
      `dash.example.test.:${port}`,
    ]) {
      const res = await send(
        "/echo",
        { Host: host, "Content-Type": "application/x-www-form-urlencoded" },
        "POST",
        "password=hunter2",
      );
      expect(res.status, host).toBe(400);
      expect(res.body.toString(), host).toBe("Bad Request: this server does not answer to that Host.\n");
      expect((await send("/assets/app-abc123.js", { Host: host })).status, host).toBe(400);
      expect((await send("/raw", { Host: host })).status, host).toBe(400);
    }
    // A proxy trusted to name the host (TRUST_PROXY) is held to the same list.
    expect((await send("/echo", { "X-Forwarded-Host": "evil.test" }, "POST", "x")).status).toBe(400);
    expect(seen).toEqual([]);
    await expect.poll(() => logs.length).toBe(9 * 3 + 1);
    expect(logs.every((l) => l.status === 400)).toBe(true);
    expect(JSON.stringify(logs)).not.toContain("hunter2");
  });

  it("answers BASE_URL's host and ALLOWED_HOSTS, any case, the default port written out or not", async () => {
    const port = new URL(base).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `dash.example.test:${port}`,
      `DASH.example.TEST:${port}`,
      "10.0.0.5:8080",
    ]) {
      const res = await send("/echo", { Host: host }, "POST", "x");
      expect(res.status, host).toBe(200);
    }
    expect(
      (await send("/echo", { "X-Forwarded-Host": `dash.example.test:${port}` }, "POST", "x")).status,
    ).toBe(200);
    expect(seen).toHaveLength(5);
  });

  it("answers /healthz and /readyz to any Host, so a load balancer probes an instance by its address", async () => {
    for (const host of ["10.1.2.3:3000", "evil.test", "[fd00::1]:3000"]) {
      expect((await send("/healthz", { Host: host })).status, host).toBe(200);
      expect((await send("/readyz", { Host: host })).status, host).toBe(200);
    }
  });

  it("gives the app the body, the URL and the client address (X-Forwarded-For as far as trusted)", async () => {
    const echoed = await send("/echo?a=1", { "X-Forwarded-For": "203.0.113.5" }, "POST", "hello");
    expect(echoed.body.toString()).toBe("hello");
    expect(seen[0]).toMatchObject({ url: `${base}/echo?a=1`, ip: "203.0.113.5" });
  });

  it("refuses a body over the route's limit with 413 before the app reads it", async () => {
    const res = await send(
      "/login",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "POST",
      "a".repeat(70_000),
    );
    expect(res.status).toBe(413);
    expect(seen).toEqual([]);
  });

  it("serves assets immutable, root files for an hour, precompressed or compressed once, with 304s", async () => {
    const asset = await send("/assets/app-abc123.js", { "Accept-Encoding": "br, gzip" });
    expect(asset.status).toBe(200);
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(asset.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(asset.body).toString()).toContain("console.log");
    const again = await send("/assets/app-abc123.js", {
      "Accept-Encoding": "br, gzip",
      "If-None-Match": String(asset.headers.etag),
    });
    expect(again.status).toBe(304);
    expect((await send("/assets/missing.js")).status).toBe(404);
    const icon = await send("/favicon.ico");
    expect(icon.headers["cache-control"]).toBe("public, max-age=3600");
    expect(icon.headers["content-type"]).toBe("image/x-icon");
    expect(seen).toEqual([]);
  });

  it("compresses large and streamed text, not small JSON or event streams", async () => {
    const small = await send("/api/small", { "Accept-Encoding": "gzip" });
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers["content-length"]).toBe(String(small.body.length));

    const large = await send("/api/big", { "Accept-Encoding": "gzip" });
    expect(large.headers["content-encoding"]).toBe("gzip");
    expect(large.headers.vary).toMatch(/Accept-Encoding/);
    expect(gunzipSync(large.body).toString()).toBe(big);
    const plain = await send("/api/big");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(big);

    const page = await send("/page", { "Accept-Encoding": "br" });
    expect(page.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(page.body).toString()).toMatch(/^<!DOCTYPE html>.*<\/html>$/);
  });

  it("sends an event stream's frames as they come, uncompressed, and aborts the request when the client goes", async () => {
    const frame = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${base}/events`, { headers: { "Accept-Encoding": "gzip, br" } }, (res) => {
        expect(res.headers["content-encoding"]).toBeUndefined();
        res.once("data", (c: Buffer) => {
          resolve(c.toString());
          req.destroy();
        });
      });
      req.on("error", reject);
      req.end();
    });
    expect(frame).toBe("event: hello\ndata: 1\n\n");
    await expect.poll(() => seen[0]?.signal?.aborted).toBe(true);
  });

  it("lets serveRaw answer on the socket, outside the app", async () => {
    const raw = await send("/raw", { "X-Forwarded-For": "198.51.100.7" });
    expect(raw.body.toString()).toBe("raw 198.51.100.7");
    expect(seen).toEqual([]);
  });

  it("logs each request once it is answered, with secrets in the query redacted", async () => {
    await send("/api/small?token=abc123&page=2");
    await expect.poll(() => logs.length).toBe(1);
    expect(logs[0]).toMatchObject({ method: "GET", url: "/api/small?token=[redacted]&page=2", status: 200 });
    expect(JSON.stringify(logs)).not.toContain("abc123");
  });

  it("keeps serving when recording a request's metrics throws: the error is reported, not thrown into the listener", async () => {
    observeThrows = new Error('Added label "polluted" is not included in initial labelset');
    expect((await send("/api/small")).status).toBe(200);
    await expect.poll(() => errors.length).toBe(1);
    expect(String(errors[0])).toMatch(/polluted/);
    expect((await send("/healthz")).status).toBe(200);
    expect((await send("/api/small")).status).toBe(200);
  });

  it("passes a bearer-only cross-site /api post to the app (CSRF rule), and never logs the token", async () => {
    const secret = `dash_${"s".repeat(43)}`;
    const crossSite = { "Sec-Fetch-Site": "cross-site", Authorization: `Bearer ${secret}` };
    const res = await send("/api/small", crossSite, "POST", "x");
    expect(res.status).not.toBe(403);
    expect(seen).toHaveLength(1);
    const withCookie = await send("/api/small", { ...crossSite, Cookie: "__session=x" }, "POST", "x");
    expect(withCookie.status).toBe(403);
    await expect.poll(() => logs.length).toBe(2);
    expect(JSON.stringify(logs)).not.toContain(secret);
  });
});

describe("the compression policy", () => {
  const encodingOf = async (path: string, acceptEncoding: string) =>
    (await send(path, { "Accept-Encoding": acceptEncoding })).headers["content-encoding"];
  it("takes brotli over gzip unless the client weighs it lower or refuses it", async () => {
    const big = "/sized?n=5000";
    expect(await encodingOf(big, "gzip, deflate, br")).toBe("br");
    expect(await encodingOf(big, "br;q=0.5, gzip")).toBe("gzip");
    expect(await encodingOf(big, "br;q=0, gzip;q=0")).toBeUndefined();
    expect(await encodingOf(big, "identity")).toBeUndefined();
    expect((await send(big)).headers["content-encoding"]).toBeUndefined();
  });
  it("compresses text of 1 KB and more, never images, encoded or no-transform bodies", async () => {
    expect(await encodingOf("/sized?n=1023", "br")).toBeUndefined();
    expect(await encodingOf("/sized?n=1024", "br")).toBe("br");
    expect(await encodingOf("/sized?n=50000&type=image/png", "gzip")).toBeUndefined();
    expect(await encodingOf("/sized?n=50000&type=text/csv&ce=gzip", "br")).toBe("gzip");
    expect(await encodingOf("/sized?n=50000&type=text/csv&cc=no-transform", "gzip")).toBeUndefined();
  });
});
