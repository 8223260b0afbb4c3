import type { IncomingMessage, ServerResponse } from "node:http";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { env } from "../env.server";
import { configuredHostAllowList } from "../http/allowed-hosts.server";
import { devRequestLine } from "../http/dev-request-log.server";
import { createPipeline, type RequestLog } from "../http/node-server.server";
import type { RequestInfo } from "../http/request-info.server";
import { staticFiles } from "../http/static-files.server";
import { unavailableHeaders } from "../http/unavailable.server";
import { metricsEndpoint } from "../metrics/endpoint.server";
import { serveEventStream } from "./event-stream.server";
import { isDraining, readiness } from "./readiness.server";

// The request listener server.ts serves, composed here so that server.ts takes it from the React
// Router build's entry (app/entry.server.tsx) and holds no module of the app itself: the guards,
// the request id store and the metrics are the routes' own instances
// (docs/decisions/002-lean-server.md).

type Logger = {
  info(entry: object): void;
  error(entry: object, message: string): void;
  isLevelEnabled(level: string): boolean;
};

export type AppListenerOptions = {
  production: boolean;
  /** The port the server listens on: `npm run dev` also answers the loopback names on it. */
  port: number;
  /** The build's client files (production). */
  clientDir?: string;
  logger: Logger;
  /** Vite's middleware (development). */
  devMiddleware?(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /**
   * GET /api/events on the socket (production; default). False sends it through React Router like
   * the dev server does: `npm run bench:sse` measures both (EVENTS_ON_SOCKET=0).
   */
  eventsOnSocket?: boolean;
  /** React Router's handler with the request's context. */
  handle(request: Request, info: RequestInfo): Promise<Response>;
};

const EVENTS_PATH = /^\/api\/events\/?(?:\?|$)/i;

export function createAppListener(options: AppListenerOptions) {
  const { production, logger } = options;
  const eventsOnSocket = production && options.eventsOnSocket !== false;

  /**
   * Production: a JSON line a request (pino). Development: a short readable line, and none for the
   * ~100 source files and packages a page view loads through Vite (app/http/dev-request-log.server.ts).
   */
  function log(entry: RequestLog) {
    if (production) return void logger.info(entry);
    if (!logger.isLevelEnabled("info")) return;
    const line = devRequestLine(entry);
    // Not console.log, which names the request again ("[requestId=…]", app/http/request-id.server.ts).
    if (line) process.stdout.write(`${line}\n`);
  }

  /**
   * GET /api/events on node's request and response, before React Router: a stream held open for
   * hours costs less than half the memory there (docs/decisions/014-event-streams-on-the-socket.md).
   * Production only: the dev server reloads modules, so there the route answers.
   */
  function serveRaw(
    req: IncomingMessage,
    res: ServerResponse,
    ip: string,
    origin: string,
    info: RequestInfo,
  ) {
    if (!eventsOnSocket || req.method !== "GET" || !EVENTS_PATH.test(req.url ?? "")) return false;
    info.route = "/api/events";
    serveEventStream(req, res, ip, origin).catch((error) => {
      logger.error({ err: error, requestId: res.getHeader("x-request-id") }, "event stream failed");
      // The browser's EventSource tries again by itself; an outage is a 503, not a fault.
      if (!res.headersSent && isDatabaseUnavailable(error)) res.writeHead(503, unavailableHeaders).end();
      else if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
    return true;
  }

  return createPipeline({
    trustProxy: env().TRUST_PROXY,
    // BASE_URL's host and ALLOWED_HOSTS; `npm run dev` also answers localhost, 127.0.0.1 and [::1].
    isAllowedHost: configuredHostAllowList({ development: !production, port: options.port }),
    log,
    readiness,
    draining: isDraining,
    staticFiles: options.clientDir ? staticFiles(options.clientDir) : undefined,
    serveRaw,
    devMiddleware: options.devMiddleware,
    handle: options.handle,
    metrics: metricsEndpoint,
    onError: (error, requestId) => logger.error({ err: error, requestId }, "request failed"),
  });
}
