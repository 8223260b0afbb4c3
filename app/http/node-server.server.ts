import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequest, sendResponse } from "@remix-run/node-fetch-server";
import compression from "compression";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { admit } from "./admission.server";
import { limitRequestBodies } from "./body-limit.server";
import { redactUrl } from "./redact-url";
import {
  clientAddress,
  refuseBadHost,
  refuseCrossOrigin,
  refuseUnknownHost,
  requestOrigin,
  requestPath,
} from "./request-guards.server";
import { REQUEST_ID_HEADER, resolveRequestId, runWithRequestId } from "./request-id.server";
import type { RequestInfo } from "./request-info.server";
import type { StaticFiles } from "./static-files.server";
import { unavailableHeaders } from "./unavailable.server";

// The request path on node:http (docs/decisions/041-request-path.md): a thin wrapper of guards
// around libraries. In the order each request meets it: the request id (X-Request-Id on every
// answer, and the rest runs under it: decision 026), the log line (on finish, URL redacted),
// /healthz and /readyz (any Host: load balancers probe by address), the Host guards (a usable Host, one the
// server answers to), the cross-origin guard, the body limit, client files (sirv), /metrics, what
// is answered on the socket itself (serveRaw), then React Router through
// @remix-run/node-fetch-server, compressed by `compression`.

export type RequestLog = { method: string; url: string; status: number; ms: number; requestId: string };

type Next = () => void;

/** Labels of requests answered before React Router (app/metrics/metrics.server.ts has the others). */
const ROUTE = {
  unmatched: "unmatched",
  static: "static",
  health: "/healthz",
  ready: "/readyz",
  metrics: "/metrics",
};

/** GET /readyz's answer: whether this instance takes new work, and if not, why. */
export type Readiness = { ready: true } | { ready: false; reason: "draining" | "database" | "tasks" };

/** The app's metrics as the pipeline uses them (app/metrics/endpoint.server.ts). */
type PipelineMetrics = {
  /** Each answered request: its route label, status and milliseconds. Synchronous and cheap. */
  observe(route: string, status: number, ms: number): void;
  /** GET /metrics on this port; false when this port serves none (React Router answers 404). */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
};

export type PipelineOptions = {
  /** How many proxies in front may set X-Forwarded-* (TRUST_PROXY). */
  trustProxy: number;
  /**
   * Whether the server answers to this Host (or trusted X-Forwarded-Host): BASE_URL's and
   * ALLOWED_HOSTS (app/http/allowed-hosts.server.ts). Any other gets 400 before anything runs.
   */
  isAllowedHost(host: string): boolean;
  log(entry: RequestLog): void;
  /** GET /readyz (docs/http-contract.md); /healthz is liveness and asks nothing. */
  readiness(): Promise<Readiness>;
  /**
   * True from SIGTERM on (app/server/readiness.server.ts): every answer then says
   * `Connection: close`, so keep-alive clients and proxies open their next request elsewhere.
   */
  draining?(): boolean;
  /** The build's client files (production; app/http/static-files.server.ts). */
  staticFiles?: StaticFiles;
  /**
   * Answers a request outside React Router and returns true, or returns false (the event stream,
   * docs/decisions/014-event-streams-on-the-socket.md). `origin` is the request's, past the Host guard.
   */
  serveRaw?(
    req: IncomingMessage,
    res: ServerResponse,
    ip: string,
    origin: string,
    info: RequestInfo,
  ): boolean;
  /** Vite's middleware in development. */
  devMiddleware?(req: IncomingMessage, res: ServerResponse, next: Next): void;
  /** React Router. `info` becomes the request context's (its route label is set by middleware). */
  handle(request: Request, info: RequestInfo): Promise<Response>;
  metrics?: PipelineMetrics;
  onError(error: unknown, requestId: string): void;
};

/**
 * What compresses (decision 041): compressible types as `compression` knows them, except event
 * streams, whose frames must leave at once; bodies known to be under 1 KB are left alone (its
 * threshold), and brotli runs at quality 4 (its default) when the client takes it.
 */
const compress = compression({
  filter: (req, res) =>
    !String(res.getHeader("Content-Type")).startsWith("text/event-stream") && compression.filter(req, res),
});

/**
 * `compression` is a Connect middleware, typed for Express's request and response; it reads and
 * wraps only what Node's own have, which is all it is given here.
 */
function compressNode(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  Reflect.apply(compress, undefined, [req, res, next]);
}

/**
 * A body that ends with its first chunk (a rendered document, JSON) goes out with its length, so
 * compression skips small ones; a longer stream is passed on as it comes.
 */
async function withKnownLength(response: Response): Promise<Response> {
  const type = response.headers.get("Content-Type");
  if (!response.body || response.headers.has("Content-Length") || type?.startsWith("text/event-stream"))
    return response;
  const reader = response.body.getReader();
  const first = await reader.read();
  const second = first.done ? first : await reader.read();
  if (second.done) {
    const whole = first.value ?? new Uint8Array(0);
    const headers = new Headers(response.headers);
    headers.set("Content-Length", String(whole.byteLength));
    return new Response(whole, { status: response.status, statusText: response.statusText, headers });
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first.value!);
      controller.enqueue(second.value);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, response);
}

export function createPipeline(options: PipelineOptions) {
  const limitBodies = limitRequestBodies();

  function logWhenDone(req: IncomingMessage, res: ServerResponse, info: RequestInfo) {
    const start = performance.now();
    res.once("finish", () => {
      // Nothing catches a throw in this listener: it would end the process for everyone (issue 34,
      // a polluted prototype made prom-client throw here). The request is answered; report and go on.
      try {
        const ms = performance.now() - start;
        options.log({
          method: req.method ?? "GET",
          url: redactUrl(req.url ?? "/"),
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          requestId: info.requestId,
        });
        options.metrics?.observe(info.route!, res.statusCode, ms);
      } catch (error) {
        try {
          options.onError(error, info.requestId);
        } catch {}
      }
    });
  }

  function fail(res: ServerResponse, error: unknown, requestId: string) {
    options.onError(error, requestId);
    if (res.headersSent) return void res.destroy();
    // An unreachable database is an outage that passes, not a fault (app/http/unavailable.server.ts).
    if (isDatabaseUnavailable(error)) {
      res.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", ...unavailableHeaders });
      return void res.end("Service Unavailable\n");
    }
    res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("Internal Server Error\n");
  }

  async function app(req: IncomingMessage, res: ServerResponse, origin: string, info: RequestInfo) {
    // The origin the Host guard accepted (a trusted proxy's X-Forwarded-Proto/Host included).
    const [scheme, host] = origin.split("://");
    let request: Request | undefined;
    try {
      request = createRequest(req, res, { protocol: `${scheme}:`, host });
      await sendResponse(res, await withKnownLength(await options.handle(request, info)));
    } catch (error) {
      if (request?.signal.aborted) return void res.destroy(); // the client left
      fail(res, error, info.requestId);
    }
  }

  function probeAnswer(res: ServerResponse, status: number, answer: object) {
    const body = JSON.stringify(answer);
    res.writeHead(status, {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  /** Readiness: 503 while draining, while the database is unreachable, while the task runner is down. */
  async function ready(res: ServerResponse) {
    const answer = await options.readiness().catch((): Readiness => ({ ready: false, reason: "database" }));
    probeAnswer(res, answer.ready ? 200 : 503, answer);
  }

  function route(req: IncomingMessage, res: ServerResponse, origin: string, info: RequestInfo) {
    const path = requestPath(req);
    if (options.staticFiles?.(req, res, path)) {
      info.route = ROUTE.static;
      return;
    }
    if (path === ROUTE.metrics && options.metrics?.serve(req, res)) {
      info.route = ROUTE.metrics;
      return;
    }
    info.ip = clientAddress(req, options.trustProxy);
    if (options.serveRaw?.(req, res, info.ip, origin, info)) return;
    // Pages and API calls start in a turn of their own (admission.server.ts); probes, static files,
    // metrics and event streams above are answered at once.
    const answer = () =>
      compressNode(req, res, () =>
        admit(
          () => void app(req, res, origin, info),
          // The client left while the request waited its turn: its abort signal, wired up by
          // createRequest in app(), would never fire, so the work would run for nobody.
          () => req.destroyed || res.destroyed,
          () => res.destroy(),
        ),
      );
    if (options.devMiddleware) options.devMiddleware(req, res, answer);
    else answer();
  }

  function listener(req: IncomingMessage, res: ServerResponse, requestId: string) {
    // The one object per request that the router's request context carries; the route label
    // starts fixed and becomes the matched route's pattern in the first root middleware.
    const info: RequestInfo = { ip: "", route: ROUTE.unmatched, requestId };
    logWhenDone(req, res, info);
    // Draining: this answer closes its connection, and the client's next request opens a new one,
    // which the balancer sends to an instance still ready (node writes `Connection: close`).
    if (options.draining?.()) res.shouldKeepAlive = false;
    // Only origin-form targets ("/path?query"): an absolute or "*" target names no page of ours.
    if (!req.url?.startsWith("/")) {
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" });
      return void res.end("Bad Request\n");
    }
    // Liveness and readiness answer any Host, even none: a load balancer probes each instance by
    // its address. Liveness asks nothing: while the process runs it is alive, and restarting it
    // would not bring a lost database back.
    const path = requestPath(req);
    if (path === ROUTE.health) {
      info.route = ROUTE.health;
      return void probeAnswer(res, 200, { ok: true });
    }
    if (path === ROUTE.ready) {
      info.route = ROUTE.ready;
      return void ready(res);
    }
    const origin = requestOrigin(req, options.trustProxy);
    if (
      refuseBadHost(origin, res) ||
      refuseUnknownHost(req, options.trustProxy, options.isAllowedHost, res) ||
      refuseCrossOrigin(req, origin!, res)
    )
      return;
    limitBodies(req, res, () => route(req, res, origin!, info));
  }

  return function requestIdListener(req: IncomingMessage, res: ServerResponse) {
    const requestId = resolveRequestId(req.headers["x-request-id"], options.trustProxy);
    // Set before anything answers: writeHead merges it into every answer below, from a static
    // file to a refusal, a 413, the event stream or a 500.
    res.setHeader(REQUEST_ID_HEADER, requestId);
    runWithRequestId(requestId, () => listener(req, res, requestId));
  };
}
