import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { bodyLimitFor, isApiPath, PAYLOAD_TOO_LARGE_CODE } from "./body-limits";

type Next = (error?: unknown) => void;

/** If the client never reads the 413 (so `finish` never comes), the socket still goes. */
const CLOSE_ANYWAY_MS = 5_000;
const LINGER_MS = 2_000;

/**
 * The 413 is followed by a lingering close: destroying the socket at once would leave unread bytes
 * that make the kernel reset the connection, discarding the 413 before the client reads it.
 */
export function limitRequestBodies(limitFor: (pathname: string) => number = bodyLimitFor) {
  return (req: IncomingMessage, res: ServerResponse, next: Next) => {
    const length = req.headers["content-length"];
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (!chunked && (length === undefined || length === "0")) return next();

    const pathname = new URL(req.url ?? "/", "http://internal.invalid").pathname;
    const limit = limitFor(pathname);
    const refuse = () => refuseBody(req, res, limit, isApiPath(pathname));
    if (Number(length) > limit) return refuse();

    // Bytes past the limit are never handed on, so the app cannot act on a body being refused.
    let seen = 0;
    let refused = false;
    const emit = req.emit;
    req.emit = function (this: IncomingMessage, event: string | symbol, ...rest: unknown[]) {
      if (refused && (event === "data" || event === "end")) return false;
      if (event === "data") {
        seen += (rest[0] as Buffer).length;
        if (seen > limit) {
          refused = true;
          refuse();
          return false;
        }
      }
      return emit.call(this, event, ...rest);
    } as typeof req.emit;
    // An app that answers before reading the body (a 401) would reset the client too: linger there.
    const socket = req.socket;
    const destroySoon = socket.destroySoon;
    socket.destroySoon = () => (req.complete ? destroySoon.call(socket) : lingerClose(req, socket));
    next();
  };
}

function refuseBody(req: IncomingMessage, res: ServerResponse, limit: number, api: boolean) {
  req.pause();
  const socket = req.socket;
  if (res.headersSent) {
    if (res.writableFinished) lingerClose(req, socket);
    else res.once("finish", () => lingerClose(req, socket));
    setTimeout(() => socket.destroy(), CLOSE_ANYWAY_MS).unref();
    return;
  }
  const body = api
    ? JSON.stringify({ error: PAYLOAD_TOO_LARGE_CODE, limit })
    : `Payload too large: this form accepts at most ${limit} bytes.\n`;
  res.statusCode = 413;
  res.setHeader("Connection", "close");
  res.setHeader("Content-Type", api ? "application/json; charset=utf-8" : "text/plain; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.setHeader("Cache-Control", "no-store");
  const timer = setTimeout(() => socket.destroy(), CLOSE_ANYWAY_MS);
  timer.unref();
  // Node's destroySoon() would destroy the socket with the body unread: end our side and linger instead.
  socket.destroySoon = () => {
    clearTimeout(timer);
    lingerClose(req, socket);
  };
  res.end(body);
}

function lingerClose(req: IncomingMessage, socket: Socket) {
  if (socket.destroyed) return;
  if (socket.writable) socket.end();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once("end", () => {
    clearTimeout(linger);
    socket.destroy();
  });
  req.resume(); // the wrapped emit drops the bytes
}
