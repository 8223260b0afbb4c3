import { execFile } from "node:child_process";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { limitRequestBodies } from "./body-limit.server";
import { FORM_BODY_LIMIT, KB } from "./body-limits";

// The guard server.ts puts in front of the app, on a bare node:http server whose stand-in app
// reads the whole body the way the React Router adapter does (data events).
let server: Server;
let port: number;
let handled: { url: string; bytes: number }[] = [];
const sockets = new Set<import("node:net").Socket>();

beforeAll(async () => {
  const guard = limitRequestBodies();
  server = createServer((req, res) => {
    guard(req, res, () => {
      // Stands for a route that answers before reading the body (a 401 without a session).
      if (req.url === "/early") {
        res.statusCode = 401;
        return void res.end("sign in first");
      }
      let bytes = 0;
      req.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      req.on("end", () => {
        handled.push({ url: req.url ?? "", bytes });
        res.end(`read ${bytes}`);
      });
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  handled = [];
});

type Answer = { status: number; headers: IncomingMessage["headers"]; body: string; socketClosed: boolean };

/** Sends `total` bytes (chunked unless `contentLength`), reads whatever answer comes, fully. */
function send(path: string, total: number, opts: { contentLength?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { "Content-Type": "application/x-www-form-urlencoded" };
    if (opts.contentLength) headers["Content-Length"] = total;
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", headers, agent: false });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const socket = res.socket;
        const body = Buffer.concat(chunks).toString();
        // Give the server a moment to close its side; a refused body must end the connection.
        setTimeout(
          () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body,
              socketClosed: !socket || socket.destroyed || !socket.writable,
            }),
          50,
        );
      });
    });
    // Writes that fail after the answer came (the server stopped reading) are expected.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(16 * KB, "a");
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        const size = Math.min(chunk.length, total - sent);
        sent += size;
        if (!req.write(chunk.subarray(0, size))) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** `parallel` clients in a child process each POST `total` bytes; returns "status connection" or the error. */
function sendFromAnotherProcess(path: string, total: number, contentLength: boolean, parallel: number) {
  const script = `
    import http from "node:http";
    const one = () => new Promise((resolve) => {
      const headers = { "Content-Type": "application/x-www-form-urlencoded" };
      if (${contentLength}) headers["Content-Length"] = String(${total});
      const req = http.request({ host: "127.0.0.1", port: ${port}, path: ${JSON.stringify(path)}, method: "POST", headers, agent: false });
      let status = null;
      req.on("response", (res) => { status = res.statusCode; res.resume(); res.on("end", () => resolve(status + " " + res.headers.connection)); });
      req.on("error", (e) => { if (status === null) resolve(e.code); });
      const buf = Buffer.alloc(65536, "a");
      let sent = 0;
      const pump = () => { while (sent < ${total}) { sent += buf.length; if (!req.write(buf)) return void req.once("drain", pump); } req.end(); };
      pump();
    });
    console.log(JSON.stringify(await Promise.all(Array.from({ length: ${parallel} }, one))));
  `;
  return new Promise<string[]>((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
  });
}

describe("request body limits (server.ts guard)", () => {
  it("passes a body within the limit to the app whole", async () => {
    const answer = await send("/login", 10 * KB);
    expect(answer).toMatchObject({ status: 200, body: `read ${10 * KB}` });
    expect(handled).toEqual([{ url: "/login", bytes: 10 * KB }]);
  });

  it("refuses a declared Content-Length over the limit with 413, never calling the app", async () => {
    const answer = await send("/login", 70 * KB, { contentLength: true });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe("close");
    expect(answer.headers["content-type"]).toMatch(/^text\/plain/);
    expect(answer.body).toContain("too large");
    expect(answer.socketClosed).toBe(true);
    expect(handled).toEqual([]);
  });

  it("answers JSON {error: payload_too_large} on /api/*", async () => {
    const answer = await send("/api/tasks", 70 * KB, { contentLength: true });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: "payload_too_large", limit: 64 * KB });
    expect(handled).toEqual([]);
  });

  it("cuts a chunked 1 MB body at the limit: the client reads the 413, then a new connection works", async () => {
    const answer = await send("/login", 1024 * KB);
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe("close");
    expect(answer.socketClosed).toBe(true);
    // The app never saw the end of the body, so it never acted on it.
    expect(handled).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(sockets.size).toBe(0);

    const next = await send("/login", 1 * KB);
    expect(next).toMatchObject({ status: 200, body: `read ${KB}` });
  });

  it("cuts a chunked body on /api/* with the JSON answer, and fetch reads it", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 64; i++) controller.enqueue(new Uint8Array(16 * KB));
        controller.close();
      },
    });
    const res = await fetch(`http://127.0.0.1:${port}/api/tasks`, {
      method: "POST",
      body,
      duplex: "half",
      headers: { "Content-Type": "application/json" },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "payload_too_large", limit: 64 * KB });
    expect((await fetch(`http://127.0.0.1:${port}/api/tasks`, { method: "POST", body: "{}" })).status).toBe(
      200,
    );
  });

  it("uses the route's limit from the one table (a form page gets the form limit)", async () => {
    expect((await send("/dashboard/users", FORM_BODY_LIMIT)).status).toBe(200);
    expect((await send("/dashboard/users", FORM_BODY_LIMIT + 1)).status).toBe(413);
    expect((await send("/api/webhooks/tasks", 512 * KB)).status).toBe(200);
  });

  it("closes cleanly after a 413: clients still writing a big body read the answer, never a reset", async () => {
    // The clients run in another process, as real ones do: a socket destroyed with unread bytes
    // in it makes the kernel send RST, which throws the 413 away before the client reads it.
    for (const contentLength of [true, false]) {
      const outcomes = await sendFromAnotherProcess("/login", 64 * 1024 * KB, contentLength, 6);
      expect(outcomes).toEqual(Array(6).fill("413 close"));
    }
  }, 60_000);

  it("closes as cleanly when the app answered before the body was over (a 401 without a session)", async () => {
    // Chunked: a declared Content-Length over the limit is refused before the app runs at all.
    for (let round = 0; round < 2; round++) {
      const outcomes = await sendFromAnotherProcess("/early", 64 * 1024 * KB, false, 6);
      expect(outcomes.map((o) => o.split(" ")[0])).toEqual(Array(6).fill("401"));
    }
  }, 60_000);
});
