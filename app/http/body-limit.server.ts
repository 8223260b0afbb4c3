import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { bodyLimitFor, isApiPath, PAYLOAD_TOO_LARGE_CODE } from "./body-limits";

type Next = (error?: unknown) => void;

/** If the client never reads the 413 (so `finish` never comes), the socket still goes. */
const CLOSE_ANYWAY_MS = 5_000;
/** How long the rest of a refused body is read and thrown away after the 413 (lingering close). */
const LINGER_MS = 2_000;

/**
 * Refuses a request body over its route's limit before the app buffers it: by Content-Length at
 * once, and for chunked bodies as the bytes arrive. The 413 carries `Connection: close`, then the
 * socket is closed the way HTTP servers close on a client still sending (a "lingering close"):
 * our side is ended after the answer, what still arrives is read and thrown away for at most
 * LINGER_MS, then the socket goes. Destroying it at once would leave unread bytes in the kernel,
 * which then answers the client with a reset that discards the 413 before the client reads it.
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

    // Counted at the one event every reader of the stream goes through; bytes past the limit are
    // never handed on, so the app cannot act on (or buffer) a body that is being refused.
    let seen = 0;
    let refused = false;
    const emit = req.emit;
    req.emit = function (this: IncomingMessage, event: string | symbol, ...rest: unknown[]) {
      // After a refusal the rest is read only to be thrown away (lingering close): neither its
      // bytes nor its end may reach the app, which would then act on a cut body.
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
    // An app that answers before reading the body (a 401 without a session) leaves Node to close
    // the socket with the body unread, which resets the client: linger there too.
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
    // The app answered before the body was over (a 401 without a session): nothing more can be
    // said on this socket, so it closes the same lingering way once that answer is out.
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
  // Node ends a `Connection: close` exchange through destroySoon(), which would destroy the socket
  // with the rest of the body unread: end our side instead and linger.
  socket.destroySoon = () => {
    clearTimeout(timer);
    lingerClose(req, socket);
  };
  res.end(body);
}

/** Ends our side, reads and drops what still arrives for at most LINGER_MS, then closes. */
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
