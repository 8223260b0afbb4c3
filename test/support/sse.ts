import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";

// Event streams read off real sockets, for the tests of GET /api/events served on node's own
// request and response (app/events/raw-stream.server.ts, app/server/event-stream.server.ts).

export type Listening = { port: number; close(): Promise<void> };

/** A node:http server on an ephemeral loopback port, answering every request with `handle`. */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => unknown,
): Promise<Listening> {
  const server: Server = createServer((req, res) => void handle(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

export type RawStream = {
  socket: net.Socket;
  /** Everything received so far, head included. */
  text(): string;
  status(): number;
  /** The response head, names lowercased. */
  headers(): Map<string, string[]>;
  /** Resolves once the received text satisfies `predicate` (rejects when the socket ends first). */
  until(predicate: (text: string) => boolean): Promise<string>;
  ended: Promise<void>;
};

/** GET `path` on a bare socket: no agent, no parser, exactly what a browser's bytes would be. */
export function rawGet(port: number, path: string, headers: Record<string, string> = {}): RawStream {
  const socket = net.connect({ port, host: "127.0.0.1" });
  const lines = Object.entries({ Host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\n${lines.join("")}\r\n`);
  let text = "";
  const waiters = new Set<() => void>();
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    text += chunk;
    for (const w of [...waiters]) w();
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  void ended.then(() => {
    for (const w of [...waiters]) w();
  });
  const head = () => text.slice(0, Math.max(0, text.indexOf("\r\n\r\n")));
  return {
    socket,
    ended,
    text: () => text,
    status: () => Number(head().slice(9, 12)),
    headers() {
      const map = new Map<string, string[]>();
      for (const line of head().split("\r\n").slice(1)) {
        const at = line.indexOf(":");
        const name = line.slice(0, at).toLowerCase();
        map.set(name, [...(map.get(name) ?? []), line.slice(at + 1).trim()]);
      }
      return map;
    },
    until(predicate) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(text)) {
            waiters.delete(check);
            resolve(text);
          } else if (socket.destroyed) {
            waiters.delete(check);
            reject(new Error(`the stream ended first; received:\n${text}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** A whole response that is not a stream: its body, once all of it arrived. */
export async function wholeBody(stream: RawStream): Promise<string> {
  const text = await stream.until((t) => {
    const at = t.indexOf("\r\n\r\n");
    if (at < 0) return false;
    const length = /\r\ncontent-length: (\d+)/i.exec(t.slice(0, at))?.[1];
    return length ? t.length >= at + 4 + Number(length) : t.endsWith("\r\n0\r\n\r\n");
  });
  return /\r\ntransfer-encoding: chunked/i.test(text)
    ? dechunk(text)
    : text.slice(text.indexOf("\r\n\r\n") + 4);
}

/** The body of a chunked response read so far, without the chunk framing. */
export function dechunk(text: string): string {
  let rest = text.slice(text.indexOf("\r\n\r\n") + 4);
  let body = "";
  for (;;) {
    const eol = rest.indexOf("\r\n");
    if (eol < 0) return body;
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!size || rest.length < eol + 2 + size) return body;
    body += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** Polls `read` until it returns `want` (or gives up after `ms`); returns the last value read. */
export async function eventually<T>(read: () => T, want: T, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  let value = read();
  while (value !== want && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
    value = read();
  }
  return value;
}
