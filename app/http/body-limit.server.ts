import type { IncomingMessage, ServerResponse } from "node:http";
import { bodyLimitFor, isApiPath, PAYLOAD_TOO_LARGE_CODE } from "./body-limits";

type Next = (error?: unknown) => void;

/** If the client never reads the 413 (so `finish` never comes), the socket still goes. */
const CLOSE_ANYWAY_MS = 5_000;

/**
 * Refuses a request body over its route's limit before the app buffers it: by Content-Length at
 * once, and for chunked bodies as the bytes arrive. The 413 carries `Connection: close` and the
 * socket is destroyed once the answer has been handed to the kernel: draining the rest of a large
 * body would take as long as receiving it, and a keep-alive socket with half a body in it would
 * corrupt the client's next request.
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
      if (event === "data") {
        if (refused) return false;
        seen += (rest[0] as Buffer).length;
        if (seen > limit) {
          refused = true;
          refuse();
          return false;
        }
      }
      return emit.call(this, event, ...rest);
    } as typeof req.emit;
    next();
  };
}

function refuseBody(req: IncomingMessage, res: ServerResponse, limit: number, api: boolean) {
  req.pause();
  const socket = req.socket;
  if (res.headersSent) {
    // The app already answered while the body kept coming: nothing more can be said on this socket.
    socket.destroy();
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
  res.on("finish", () => {
    clearTimeout(timer);
    socket.destroy();
  });
  res.end(body);
}
