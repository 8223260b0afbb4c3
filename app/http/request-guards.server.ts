import type { NextFunction, Request, Response } from "express";
import { crossOriginRefusal, isCrossOrigin } from "./security.server";

// Express-level guards in server.ts, before React Router's request handler: what must be answered
// before the adapter builds a Request (a bad Host made it throw: a 500 and a stack per request)
// or before React Router's own origin check (a 400 and a logged stack where the contract says 403).

// A host name or address and an optional port, nothing else ("a b", "a/b", "[::1" are not hosts).
const HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** A Host header a URL can be built from (also checked by the event stream served before Express). */
export function isHostHeader(value: string | undefined): value is string {
  return value !== undefined && HOST.test(value);
}

export const BAD_HOST_MESSAGE = "Bad Request: missing or invalid Host header.\n";

/** The origin the request was sent to, as React Router's adapter will read it; null if it has none. */
export function requestOrigin(req: Request): string | null {
  const forwarded = req.app.enabled("trust proxy") ? req.get("X-Forwarded-Host") : undefined;
  const host = (forwarded ?? req.get("Host"))?.split(",")[0]?.trim();
  if (!isHostHeader(host)) return null;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return null; // e.g. a port above 65535
  }
}

async function send(res: Response, answer: globalThis.Response) {
  res.status(answer.status);
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/** 400 for a request without a usable Host (or X-Forwarded-Host behind a trusted proxy). */
export function refuseBadHost(req: Request, res: Response, next: NextFunction) {
  if (requestOrigin(req) !== null) return next();
  res.status(400).type("text/plain").send(BAD_HOST_MESSAGE);
}

/** 403 for a state-changing request from another origin (the rule of security.server.ts). */
export function refuseCrossOrigin(req: Request, res: Response, next: NextFunction) {
  const origin = requestOrigin(req);
  const headers = { get: (name: string) => req.get(name) ?? null };
  if (origin === null || !isCrossOrigin({ method: req.method, pathname: req.path, headers }, origin))
    return next();
  send(res, crossOriginRefusal(req.path)).catch(next);
}
