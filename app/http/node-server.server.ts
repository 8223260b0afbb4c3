import type { IncomingMessage, ServerResponse } from "node:http";
import { limitRequestBodies } from "./body-limit.server";
import { sendResponse, toRequest } from "./fetch-adapter.server";
import { redactUrl } from "./redact-url";
import {
  clientAddress,
  refuseBadHost,
  refuseCrossOrigin,
  requestOrigin,
  requestPath,
} from "./request-guards.server";
import { REQUEST_ID_HEADER, resolveRequestId, runWithRequestId } from "./request-id.server";
import type { StaticFiles } from "./static-files.server";

// The production request path on a bare node:http server, in the order each request meets it:
// the request id (X-Request-Id on every answer, and the rest runs under it: decision 026),
// the log line (on finish, URL redacted), Host and cross-origin guards, the body limit, client
// files, /healthz, what is answered on the socket itself (serveRaw), then React Router.
// Nothing here runs per request that the request does not need (decision 013).

export type RequestLog = { method: string; url: string; status: number; ms: number; requestId: string };

type Next = () => void;

export type PipelineOptions = {
  /** How many proxies in front may set X-Forwarded-* (TRUST_PROXY). */
  trustProxy: number;
  log(entry: RequestLog): void;
  health(): Promise<boolean>;
  /** The build's client files (production). */
  staticFiles?: StaticFiles;
  /**
   * Answers a request outside React Router and returns true, or returns false (e.g. the SSE
   * stream). `origin` is the request's, past the Host guard.
   */
  serveRaw?(req: IncomingMessage, res: ServerResponse, ip: string, origin: string): boolean;
  /** Vite's middleware in development. */
  devMiddleware?(req: IncomingMessage, res: ServerResponse, next: Next): void;
  /** React Router. */
  handle(request: Request, ip: string, requestId: string): Promise<Response>;
  onError(error: unknown, requestId: string): void;
};

export function createPipeline(options: PipelineOptions) {
  const limitBodies = limitRequestBodies();

  function logWhenDone(req: IncomingMessage, res: ServerResponse, requestId: string) {
    const start = performance.now();
    res.once("finish", () => {
      options.log({
        method: req.method ?? "GET",
        url: redactUrl(req.url ?? "/"),
        status: res.statusCode,
        ms: Math.round((performance.now() - start) * 10) / 10,
        requestId,
      });
    });
  }

  function fail(res: ServerResponse, error: unknown, requestId: string) {
    options.onError(error, requestId);
    if (res.headersSent) return void res.destroy();
    res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("Internal Server Error\n");
  }

  function app(req: IncomingMessage, res: ServerResponse, origin: string, ip: string, requestId: string) {
    let request: Request;
    try {
      request = toRequest(req, res, origin);
    } catch (error) {
      fail(res, error, requestId);
      return;
    }
    options
      .handle(request, ip, requestId)
      .then((response) => sendResponse(req, res, response))
      .catch((error) => {
        if (request.signal.aborted) return void res.destroy(); // the client left
        fail(res, error, requestId);
      });
  }

  async function health(res: ServerResponse) {
    const ok = await options.health().catch(() => false);
    const body = JSON.stringify({ ok });
    res.writeHead(ok ? 200 : 503, {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  function route(req: IncomingMessage, res: ServerResponse, origin: string, requestId: string) {
    const path = requestPath(req);
    if (options.staticFiles?.serve(req, res, path)) return;
    if (path === "/healthz") return void health(res);
    const ip = clientAddress(req, options.trustProxy);
    if (options.serveRaw?.(req, res, ip, origin)) return;
    if (options.devMiddleware) options.devMiddleware(req, res, () => app(req, res, origin, ip, requestId));
    else app(req, res, origin, ip, requestId);
  }

  function listener(req: IncomingMessage, res: ServerResponse, requestId: string) {
    logWhenDone(req, res, requestId);
    // Only origin-form targets ("/path?query"): an absolute or "*" target names no page of ours.
    if (!req.url?.startsWith("/")) {
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" });
      return void res.end("Bad Request\n");
    }
    const origin = requestOrigin(req, options.trustProxy);
    if (refuseBadHost(origin, res) || refuseCrossOrigin(req, origin!, res)) return;
    limitBodies(req, res, () => route(req, res, origin!, requestId));
  }

  return function requestIdListener(req: IncomingMessage, res: ServerResponse) {
    const requestId = resolveRequestId(req.headers["x-request-id"], options.trustProxy);
    // Set before anything answers: writeHead merges it into every answer below, from a static
    // file to a refusal, a 413, the event stream or a 500.
    res.setHeader(REQUEST_ID_HEADER, requestId);
    runWithRequestId(requestId, () => listener(req, res, requestId));
  };
}
