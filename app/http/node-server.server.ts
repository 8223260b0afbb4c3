import type { IncomingMessage, ServerResponse } from "node:http";
import type { Span } from "@opentelemetry/api";
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
import { incomingContext, startRequestSpan, tracing } from "./tracing.server";
import { unavailableHeaders } from "./unavailable.server";

// The request path on node:http: a thin wrapper of guards around libraries (decision 041).

export type RequestLog = {
  method: string;
  url: string;
  status: number;
  ms: number;
  requestId: string;
  /** With tracing on: the request's trace, beside its request id. */
  traceId?: string;
};

/** Each traced request's span, ended when its answer is sent. */
const spans = new WeakMap<IncomingMessage, Span>();

type Next = () => void;

const ROUTE = {
  unmatched: "unmatched",
  static: "static",
  health: "/healthz",
  ready: "/readyz",
  metrics: "/metrics",
};

export type Readiness = { ready: true } | { ready: false; reason: "draining" | "database" | "tasks" };

type PipelineMetrics = {
  observe(route: string, status: number, ms: number): void;
  /** False when this port serves no metrics (React Router answers 404). */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
};

export type PipelineOptions = {
  trustProxy: number;
  /** BASE_URL's Host and ALLOWED_HOSTS; any other gets 400 before anything runs. */
  isAllowedHost(host: string): boolean;
  log(entry: RequestLog): void;
  /** /healthz is liveness and asks nothing. */
  readiness(): Promise<Readiness>;
  /** True from SIGTERM on: every answer says `Connection: close`, so clients go elsewhere. */
  draining?(): boolean;
  staticFiles?: StaticFiles;
  /** Answers outside React Router and returns true, or returns false (decision 014). */
  serveRaw?(
    req: IncomingMessage,
    res: ServerResponse,
    ip: string,
    origin: string,
    info: RequestInfo,
  ): boolean;
  devMiddleware?(req: IncomingMessage, res: ServerResponse, next: Next): void;
  /** `info` becomes the request context's (its route label is set by middleware). */
  handle(request: Request, info: RequestInfo): Promise<Response>;
  metrics?: PipelineMetrics;
  onError(error: unknown, requestId: string): void;
};

/** Event streams are never compressed: their frames must leave at once (decision 041). */
const compress = compression({
  filter: (req, res) =>
    !String(res.getHeader("Content-Type")).startsWith("text/event-stream") && compression.filter(req, res),
});

/** `compression` is typed for Express but only uses what Node's own request and response have. */
function compressNode(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  Reflect.apply(compress, undefined, [req, res, next]);
}

/** A body that ends with its first chunk goes out with its length, so compression skips small ones. */
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
      // Nothing catches a throw in this listener: it would end the process for everyone.
      try {
        const ms = performance.now() - start;
        const span = spans.get(req);
        options.log({
          method: req.method ?? "GET",
          url: redactUrl(req.url ?? "/"),
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          requestId: info.requestId,
          ...(span ? { traceId: span.spanContext().traceId } : {}),
        });
        if (span) {
          // Named by the route's pattern, never the URL with its ids and tokens.
          span.updateName(`${req.method ?? "GET"} ${info.route}`);
          span.setAttribute("http.route", info.route ?? ROUTE.unmatched);
          span.setAttribute("http.response.status_code", res.statusCode);
          span.end();
        }
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
    // An unreachable database is an outage that passes, not a fault.
    if (isDatabaseUnavailable(error)) {
      res.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", ...unavailableHeaders });
      return void res.end("Service Unavailable\n");
    }
    res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("Internal Server Error\n");
  }

  async function app(req: IncomingMessage, res: ServerResponse, origin: string, info: RequestInfo) {
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
    // Pages and API calls start in a turn of their own (admission.server.ts).
    const answer = () =>
      compressNode(req, res, () =>
        admit(
          () => void app(req, res, origin, info),
          // The client left while waiting: its abort signal would never fire, so the work would run for nobody.
          () => req.destroyed || res.destroyed,
          () => res.destroy(),
        ),
      );
    if (options.devMiddleware) options.devMiddleware(req, res, answer);
    else answer();
  }

  function listener(req: IncomingMessage, res: ServerResponse, requestId: string) {
    // The route label becomes the matched route's pattern in the first root middleware.
    const info: RequestInfo = { ip: "", route: ROUTE.unmatched, requestId };
    logWhenDone(req, res, info);
    // Draining: the client's next request opens a new connection, which the balancer sends elsewhere.
    if (options.draining?.()) res.shouldKeepAlive = false;
    // Only origin-form targets: an absolute or "*" target names no page of ours.
    if (!req.url?.startsWith("/")) {
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" });
      return void res.end("Bad Request\n");
    }
    // Probes answer any Host: a load balancer probes each instance by its address.
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
    // Set before anything answers, so every answer carries it.
    res.setHeader(REQUEST_ID_HEADER, requestId);
    if (!tracing()) return runWithRequestId(requestId, () => listener(req, res, requestId));
    // A traceparent is believed only from a proxy that is trusted to send one.
    const parent = incomingContext(req.headers, options.trustProxy > 0);
    startRequestSpan(req.method ?? "GET", parent, (span) => {
      spans.set(req, span);
      runWithRequestId(requestId, () => listener(req, res, requestId));
    });
  };
}
