// Preloaded into the server by `npm run bench:sse` (node --import). Over the IPC channel it answers
// with the event bus's subscriber count (so the bench can check that every dropped stream was let
// go) and the process's memory, and it times each webhook inside the server: from node's
// `request` event for POST /api/webhooks/tasks to the write of that task's frame on a stream.
// That part is what the server does; the rest of what the client sees is the two processes being
// scheduled. Plain JavaScript, so it loads whether the server runs through tsx or not.
import http from "node:http";

const arrived = new Map();
let inServer = [];

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, ...rest) {
  if (event === "request" && req.method === "POST" && req.url === "/api/webhooks/tasks") {
    const id = req.headers["webhook-id"];
    if (typeof id === "string") arrived.set(id, performance.now());
  }
  return emit.call(this, event, req, ...rest);
};

const write = http.ServerResponse.prototype.write;
http.ServerResponse.prototype.write = function (chunk, ...rest) {
  // Strings from the raw stream, bytes from React Router's (whose data line is a chunk of its own).
  if (arrived.size > 0 && chunk && chunk.length < 4096) {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("latin1");
    const id = /"taskId":"([^"]+)"/.exec(text)?.[1];
    const t0 = id && arrived.get(id);
    if (t0) {
      inServer.push(performance.now() - t0);
      arrived.delete(id);
    }
  }
  return write.call(this, chunk, ...rest);
};

process.on("message", (message) => {
  if (message === "sse-latency") {
    process.send?.({ inServer });
    inServer = [];
    arrived.clear();
    return;
  }
  if (message !== "sse-stats" && message !== "sse-memory") return;
  const bus = globalThis.__remember_epic_web?.get("systemEventBus")?.bus;
  // The bench starts the server with --expose-gc: memory is read after a full collection, so it
  // counts what the open streams hold, not how much garbage happened to be waiting.
  if (message === "sse-memory") globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ subscribers: bus ? bus.subscriberCount() : 0, rss, heapUsed });
});
// The IPC channel must not keep a stopping server alive.
process.channel?.unref();
