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

// Composed here so server.ts takes the listener from the build's entry and the guards, request id
// store and metrics are the routes' own instances (decision 002).

type Logger = {
  info(entry: object): void;
  error(entry: object, message: string): void;
  isLevelEnabled(level: string): boolean;
};

export type AppListenerOptions = {
  production: boolean;
  /** `npm run dev` also answers the loopback names on it. */
  port: number;
  clientDir?: string;
  logger: Logger;
  devMiddleware?(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** False sends GET /api/events through React Router like the dev server (`npm run bench:sse` measures both). */
  eventsOnSocket?: boolean;
  handle(request: Request, info: RequestInfo): Promise<Response>;
};

const EVENTS_PATH = /^\/api\/events\/?(?:\?|$)/i;

export function createAppListener(options: AppListenerOptions) {
  const { production, logger } = options;
  const eventsOnSocket = production && options.eventsOnSocket !== false;

  function log(entry: RequestLog) {
    if (production) return void logger.info(entry);
    if (!logger.isLevelEnabled("info")) return;
    const line = devRequestLine(entry);
    // Not console.log, which names the request again ("[requestId=…]").
    if (line) process.stdout.write(`${line}\n`);
  }

  /** A stream held open for hours costs less than half the memory outside React Router (decision 014); production only. */
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
