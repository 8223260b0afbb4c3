// A client process of `npm run bench:sse` that holds many idle event streams, so the measuring
// process stays small and the client is not what limits the server (2 cores, 10,000 streams).
// Each stream is a bare TCP socket carrying one hand-written GET: no http.Agent, no parser, no
// buffering of what arrives (pings are read and dropped).
import net from "node:net";

export type HolderCommand =
  | { type: "open"; host: string; port: number; cookies: string[]; count: number; parallel: number }
  | { type: "drop" };
export type HolderReport =
  | { type: "opened"; count: number; failed: number; ms: number; statuses: Record<string, number> }
  | { type: "dropped"; count: number };

const sockets: net.Socket[] = [];
// Several holders spread over 127.0.0.x, so 10,000 sockets never run short of ephemeral ports.
const localAddress = process.env.SSE_HOLDER_ADDRESS || undefined;

function openOne(host: string, port: number, cookie: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, localAddress });
    let settled = false;
    const settle = (status: string) => {
      if (settled) return;
      settled = true;
      resolve(status);
    };
    socket.once("connect", () => {
      socket.write(
        `GET /api/events HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\nCookie: ${cookie}\r\n\r\n`,
      );
    });
    socket.once("data", (chunk: Buffer) => {
      const status = chunk.toString("latin1", 9, 12);
      if (status === "200") sockets.push(socket);
      else socket.destroy();
      settle(status);
    });
    socket.on("data", () => {});
    socket.on("error", (error: NodeJS.ErrnoException) => settle(error.code ?? "error"));
    socket.on("close", () => settle("closed"));
  });
}

async function open(command: Extract<HolderCommand, { type: "open" }>) {
  const started = performance.now();
  const statuses: Record<string, number> = {};
  let next = 0;
  async function worker() {
    while (next < command.count) {
      const i = next++;
      // One cookie per stream: the caller keeps each user under the per-user cap.
      const status = await openOne(command.host, command.port, command.cookies[i % command.cookies.length]!);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }
  await Promise.all(Array.from({ length: Math.min(command.parallel, command.count) }, worker));
  const ok = statuses["200"] ?? 0;
  report({
    type: "opened",
    count: ok,
    failed: command.count - ok,
    ms: performance.now() - started,
    statuses,
  });
}

function report(message: HolderReport) {
  process.send?.(message);
}

process.on("message", (command: HolderCommand) => {
  if (command.type === "open") void open(command);
  else {
    // Abrupt, as a crashed browser or a dropped network would: no request end, just gone.
    const count = sockets.length;
    for (const socket of sockets.splice(0)) socket.destroy();
    report({ type: "dropped", count });
  }
});
process.on("disconnect", () => process.exit(0));
