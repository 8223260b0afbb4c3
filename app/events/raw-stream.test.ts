import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dechunk, eventually, type Listening, listen, rawGet } from "../../test/support/sse";
import { createInProcessBus } from "./bus.server";
import { SYSTEM_EVENT_CHANNEL as CH } from "./event-types";
import { MAX_UNSENT_BYTES, writeUserEventStream } from "./raw-stream.server";
import { closeAllStreams, closeStreamsOf, EVENT_STREAM_HEADERS, openStreamCount } from "./stream.server";

// The stream written straight to node's ServerResponse, through a real server and real sockets.
// Authentication is the caller's (app/server/event-stream.server.ts, raw-endpoint.test.ts).

const bus = createInProcessBus();
const HEADERS = Object.entries({ ...EVENT_STREAM_HEADERS, "X-Extra": "from-middleware" }) as [
  string,
  string,
][];
let server: Listening | undefined;

afterEach(async () => {
  closeAllStreams();
  await server?.close();
  server = undefined;
});

/** Serves GET /<userId> as that user's stream. */
async function serve() {
  server = await listen((req, res) => writeUserEventStream(res, req.url!.slice(1), HEADERS, { bus }));
  return server.port;
}

describe("the event stream on node's response", () => {
  it("sends the head, then each frame in one chunk: the opening ping, the user's own events", async () => {
    const port = await serve();
    const a = rawGet(port, "/ua");
    const b = rawGet(port, "/ub");
    await a.until((t) => dechunk(t).includes("event: ping"));
    await b.until((t) => dechunk(t).includes("event: ping"));
    expect(a.status()).toBe(200);
    expect(a.headers().get("content-type")).toEqual(["text/event-stream"]);
    expect(a.headers().get("cache-control")).toEqual(["no-cache, no-transform"]);
    expect(a.headers().get("x-accel-buffering")).toEqual(["no"]);
    expect(a.headers().get("x-extra")).toEqual(["from-middleware"]);
    expect(a.headers().get("transfer-encoding")).toEqual(["chunked"]);

    await bus.publish(CH, { type: "task-completed", userId: "ub", taskId: "theirs", status: "completed" });
    await bus.publish(CH, { type: "task-completed", userId: "ua", taskId: "mine", status: "failed" });
    const text = await a.until((t) => t.includes('"mine"'));
    // One chunk per frame: the id, event and data lines leave together.
    expect(text).toMatch(
      /\r\n[0-9a-f]+\r\nid: \d+\nevent: task-completed\ndata: \{[^\n]*"taskId":"mine"[^\n]*\}\n\n\r\n/,
    );
    expect(text).not.toContain("theirs");
    await b.until((t) => t.includes('"theirs"'));
  });

  it("closes the connection when the server ends a stream, so no proxy sends a request on it", async () => {
    // A balancer keeping its connections to the instance (nginx's upstream keepalive) would put
    // this one back in its pool when a stopping instance ends the stream, then send a request on
    // it as the instance closes it: the request is reset, and a POST cannot be repeated (a 502).
    const port = await serve();
    const stream = rawGet(port, "/uclose");
    await stream.until((t) => dechunk(t).includes("event: ping"));
    expect(stream.headers().get("connection")).toEqual(["close"]);
    closeAllStreams(500);
    const closed = await Promise.race([
      stream.ended.then(() => "closed"),
      new Promise((r) => setTimeout(() => r("still open"), 2_000)),
    ]);
    expect(closed).toBe("closed");
    expect(dechunk(stream.text())).toContain("retry: 500");
  });

  it("lets go of every subscription when clients vanish, however abruptly", async () => {
    const port = await serve();
    const streams = Array.from({ length: 120 }, (_, i) => rawGet(port, `/u${i % 12}`));
    await Promise.all(streams.map((s) => s.until((t) => t.includes("event: ping"))));
    expect(bus.subscriberCount(CH)).toBe(120);
    expect(openStreamCount()).toBe(120);
    // A third hang up politely, a third are destroyed, a third reset (RST: unread data, then destroy).
    for (const [i, s] of streams.entries()) {
      if (i < 40) s.socket.end();
      else if (i < 80) s.socket.destroy();
      else s.socket.resetAndDestroy();
    }
    expect(await eventually(() => bus.subscriberCount(CH), 0)).toBe(0);
    expect(openStreamCount()).toBe(0);
  });

  it("ends the response when the server closes the stream (the user's sessions ended)", async () => {
    const port = await serve();
    const a = rawGet(port, "/leaving");
    await a.until((t) => t.includes("event: ping"));
    closeStreamsOf("leaving");
    // The terminating chunk: the browser sees the stream end and reconnects (then gets a 401).
    await a.until((t) => t.endsWith("\r\n0\r\n\r\n"));
    expect(bus.subscriberCount(CH)).toBe(0);
  });

  it("drops a client that reads nothing once too much waits for it", async () => {
    const sent: string[] = [];
    const res = Object.assign(new EventEmitter(), {
      socket: { destroyed: false, setNoDelay: vi.fn(), cork: vi.fn(), uncork: vi.fn() },
      destroyed: false,
      writableEnded: false,
      writableLength: 0,
      writeHead: vi.fn(),
      flushHeaders: vi.fn(),
      write: (text: string) => sent.push(text) > 0,
      end: vi.fn(),
    });
    writeUserEventStream(res as unknown as ServerResponse, "slow", HEADERS, { bus });
    expect(res.socket.setNoDelay).toHaveBeenCalledWith(true);
    expect(bus.subscriberCount(CH)).toBe(1);
    res.writableLength = MAX_UNSENT_BYTES + 1;
    await bus.publish(CH, { type: "task-completed", userId: "slow", taskId: "t", status: "completed" });
    expect(bus.subscriberCount(CH)).toBe(0);
    expect(res.end).toHaveBeenCalled();
    expect(sent).toHaveLength(1); // the opening ping only
  });

  it("opens nothing for a client that left before its stream could start", () => {
    const res = Object.assign(new EventEmitter(), { destroyed: true, socket: null, writeHead: vi.fn() });
    writeUserEventStream(res as unknown as ServerResponse, "gone", HEADERS, { bus });
    expect(res.writeHead).not.toHaveBeenCalled();
    expect(openStreamCount()).toBe(0);
  });
});
