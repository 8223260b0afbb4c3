import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pino from "pino";
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from "react-router";
import { configuredHostAllowList } from "./app/http/allowed-hosts.server";
import { devRequestLine } from "./app/http/dev-request-log.server";
import { createPipeline, type PipelineMetrics, type RequestLog } from "./app/http/node-server.server";
import type { RequestInfo } from "./app/http/request-info.server";
import { staticFiles } from "./app/http/static-files.server";
import { loadDotEnv } from "./scripts/dotenv";

// A lean server (decisions 002 and 013): node:http and the pipeline of app/http/node-server.server.ts
// in front of React Router; static client files, asynchronous JSON logs, /healthz, and a graceful
// stop. In production it runs compiled (`npm run build` writes build/server.js beside the build it
// serves); `npm run dev` runs this file through tsx with Vite.
loadDotEnv();
const production = process.env.NODE_ENV === "production";
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "0.0.0.0";
const logger = pino(
  { level: process.env.LOG_LEVEL ?? "info", redact: ["req.headers.cookie", "req.headers.authorization"] },
  pino.destination({ sync: false }),
);

type AppEntry = {
  lifecycle: { start(): Promise<void>; stop(): Promise<void>; health(): Promise<boolean> };
  createRequestContext(info: RequestInfo): RouterContextProvider;
  eventStream?(req: IncomingMessage, res: ServerResponse, ip: string, origin: string): Promise<void>;
  metrics: PipelineMetrics & { listen(): Promise<import("node:http").Server | undefined> };
};

/** The compiled copy sits in the build directory it serves; this source file beside build/. */
function buildDirectory(): string {
  if (process.env.BUILD_DIR) return resolve(process.env.BUILD_DIR);
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, "server/index.js")) ? here : join(here, "build");
}

let build: ServerBuild | (() => Promise<ServerBuild>);
let getEntry: () => Promise<AppEntry>;
/** The entry module, at hand synchronously in production (in development Vite reloads it). */
let productionEntry: AppEntry | undefined;
let vite: import("vite").ViteDevServer | undefined;
// Created first so the dev server's live-reload socket can share it; it listens further down.
const httpServer = createServer();
const buildDir = buildDirectory();

if (production) {
  const loaded = (await import(pathToFileURL(join(buildDir, "server/index.js")).href)) as ServerBuild;
  // The build object itself, not a function returning it: React Router then derives its route
  // tables once instead of on every request.
  build = loaded;
  productionEntry = loaded.entry.module as unknown as AppEntry;
  getEntry = async () => productionEntry!;
} else {
  // Vite's live-reload socket on this server's own port, not on a fixed second one (24678) that
  // another Vite process on the machine (a second checkout, a test run) may hold: the browser
  // then failed to connect and threw "WebSocket closed without opened".
  vite = await import("vite").then((m) =>
    m.createServer({ server: { middlewareMode: true, hmr: { server: httpServer } } }),
  );
  const load = () => vite!.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  build = load;
  getEntry = async () => (await load()).entry.module as unknown as AppEntry;
}

const startEntry = await getEntry();
await startEntry.lifecycle.start();
// The metrics live in one registry per process (app/metrics/metrics.server.ts), so the functions of
// the first entry stay right across the dev server's reloads.
const metrics = startEntry.metrics;
const handleRequest = createRequestHandler(build, production ? "production" : "development");

const EVENTS_PATH = /^\/api\/events\/?(?:\?|$)/i;

/**
 * Requests answered on the socket itself, outside React Router; true when answered here. After
 * the Host, cross-origin and body guards and the request log; before React Router, whose routes
 * stay the fallback (the dev server reloads its entry, so there the route answers).
 * GET /api/events goes to the app's own handler on node's request and response: React Router's
 * Request, streams and middleware cost several KB of heap per open stream
 * (docs/decisions/014-event-streams-on-the-socket.md). The route stays for the dev server.
 */
function serveRaw(
  req: IncomingMessage,
  res: ServerResponse,
  ip: string,
  origin: string,
  info: RequestInfo,
): boolean {
  const eventStream = productionEntry?.eventStream;
  if (!eventStream || req.method !== "GET" || !EVENTS_PATH.test(req.url ?? "")) return false;
  info.route = "/api/events";
  eventStream(req, res, ip, origin).catch((error) => {
    logger.error({ err: error, requestId: res.getHeader("x-request-id") }, "event stream failed");
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  });
  return true;
}

/**
 * Production: a JSON line a request (pino). Development: a short readable line, and none for the
 * ~100 source files and packages a page view loads through Vite (app/http/dev-request-log.server.ts).
 */
function logRequest(entry: RequestLog) {
  if (production) return void logger.info(entry);
  if (!logger.isLevelEnabled("info")) return;
  const line = devRequestLine(entry);
  // Not console.log, which names the request again ("[requestId=…]", app/http/request-id.server.ts).
  if (line) process.stdout.write(`${line}\n`);
}

const listener = createPipeline({
  trustProxy: Number(process.env.TRUST_PROXY ?? 0),
  // BASE_URL's host and ALLOWED_HOSTS; `npm run dev` also answers localhost, 127.0.0.1 and [::1].
  isAllowedHost: configuredHostAllowList({ development: !production, port }),
  log: logRequest,
  health: async () => (await getEntry()).lifecycle.health(),
  staticFiles: production ? staticFiles(join(buildDir, "client")) : undefined,
  serveRaw,
  devMiddleware: vite?.middlewares,
  handle: async (request, info) => handleRequest(request, (await getEntry()).createRequestContext(info)),
  metrics,
  onError: (error, requestId) => logger.error({ err: error, requestId }, "request failed"),
});

const server = httpServer.on("request", listener);
// A restart makes every open tab reconnect at once: room for them in the accept queue (node's default
// is 511; the kernel caps it at net.core.somaxconn), or the overflow is reset or delayed by seconds.
server.listen({ port, host, backlog: 4096 }, () => {
  logger.info({ port, host, mode: production ? "production" : "development" }, "listening");
  if (!production) console.log(`Dashboard running at http://localhost:${port}`);
});
// METRICS_PORT: /metrics on 127.0.0.1 only (app/metrics/endpoint.server.ts); the token is never logged.
const metricsServer = await metrics.listen();
if (metricsServer)
  logger.info(
    { metricsPort: (metricsServer.address() as AddressInfo).port },
    "metrics listening on 127.0.0.1",
  );

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  server.close();
  metricsServer?.close();
  const force = setTimeout(() => process.exit(1), Number(process.env.SHUTDOWN_GRACE_MS ?? 10_000));
  force.unref();
  try {
    await (await getEntry()).lifecycle.stop();
    await vite?.close();
    server.closeAllConnections();
  } finally {
    logger.flush();
    process.exit(0);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
