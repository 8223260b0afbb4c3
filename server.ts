import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pino from "pino";
import { createRequestHandler, type ServerBuild } from "react-router";
import type * as Entry from "./app/entry.server";
import { loadDotEnv } from "./scripts/dotenv";

// node:http around the React Router build (docs/decisions/002-lean-server.md): the request listener,
// its guards, client files, /healthz and /metrics come from the build's own entry
// (app/server/http-server.server.ts), so this file holds no second copy of an app module; here are
// the logger, the listening socket and the graceful stop. In production it runs compiled
// (`npm run build` writes build/server.js beside the build it serves); `npm run dev` runs this
// file through tsx with Vite in middleware mode.
loadDotEnv();
const production = process.env.NODE_ENV === "production";
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "0.0.0.0";
const logger = pino(
  { level: process.env.LOG_LEVEL ?? "info", redact: ["req.headers.cookie", "req.headers.authorization"] },
  pino.destination({ sync: false }),
);

type AppEntry = typeof Entry;

/**
 * The build's entry module as app/entry.server.tsx writes it: React Router types it as its own
 * entry only, so the server's exports beside handleRequest are checked for here.
 */
function appEntryOf(module: ServerBuild["entry"]["module"]): AppEntry {
  if (!isAppEntry(module))
    throw new Error("The build's entry.server lacks the server's exports: rebuild it.");
  return module;
}

function isAppEntry(module: object): module is AppEntry {
  return ["lifecycle", "createAppListener", "startMetricsListener"].every((name) => name in module);
}

/** The compiled copy sits in the build directory it serves; this source file beside build/. */
function buildDirectory(): string {
  if (process.env.BUILD_DIR) return resolve(process.env.BUILD_DIR);
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, "server/index.js")) ? here : join(here, "build");
}

let build: ServerBuild | (() => Promise<ServerBuild>);
let getEntry: () => Promise<AppEntry>;
let vite: import("vite").ViteDevServer | undefined;
// Created first so the dev server's live-reload socket can share it; it listens further down.
const httpServer = createServer();
const buildDir = buildDirectory();

if (production) {
  const loaded = (await import(pathToFileURL(join(buildDir, "server/index.js")).href)) as ServerBuild;
  // The build object itself, not a function returning it: React Router then derives its route
  // tables once instead of on every request.
  build = loaded;
  const entry = appEntryOf(loaded.entry.module);
  getEntry = async () => entry;
} else {
  // Vite's live-reload socket on this server's own port, not on a fixed second one (24678) that
  // another Vite process on the machine (a second checkout, a test run) may hold: the browser
  // then failed to connect and threw "WebSocket closed without opened".
  vite = await import("vite").then((m) =>
    m.createServer({ server: { middlewareMode: true, hmr: { server: httpServer } } }),
  );
  const load = () => vite!.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  build = load;
  // Vite reloads changed modules: each request takes the current entry's context.
  getEntry = async () => appEntryOf((await load()).entry.module);
}

const entry = await getEntry();
await entry.lifecycle.start();
const handleRequest = createRequestHandler(build, production ? "production" : "development");

const server = httpServer.on(
  "request",
  entry.createAppListener({
    production,
    port,
    clientDir: production ? join(buildDir, "client") : undefined,
    logger,
    devMiddleware: vite?.middlewares,
    eventsOnSocket: process.env.EVENTS_ON_SOCKET !== "0",
    handle: async (request, info) => handleRequest(request, (await getEntry()).createRequestContext(info)),
  }),
);
// A restart makes every open tab reconnect at once: room for them in the accept queue (node's default
// is 511; the kernel caps it at net.core.somaxconn), or the overflow is reset or delayed by seconds.
server.listen({ port, host, backlog: 4096 }, () => {
  logger.info({ port, host, mode: production ? "production" : "development" }, "listening");
  if (!production) console.log(`Dashboard running at http://localhost:${port}`);
});
// METRICS_PORT: /metrics on 127.0.0.1 only (app/metrics/endpoint.server.ts); the token is never logged.
const metricsServer = await entry.startMetricsListener();
if (metricsServer)
  logger.info(
    { metricsPort: (metricsServer.address() as AddressInfo).port },
    "metrics listening on 127.0.0.1",
  );

/**
 * Stops accepting at once; resolves once every connection has ended. Idle keep-alive sockets are
 * closed now, and those that fall idle later (an answer finishing, an event stream ended) as they
 * do: node's close() closes only the ones idle at the call, and a client may hold the rest for its
 * own keep-alive time. After the drain no balancer sends on them any more, so closing one races no
 * request (closing them at SIGTERM did: a request sent on one at that moment was reset). Requests
 * still running get `boundMs`, then their sockets are cut.
 */
/**
 * Resolves in the check phase right after a poll phase that took under a millisecond (or after
 * `maxMs`): node has just accepted every connection the kernel had completed, and nothing is busy.
 */
async function calmMoment(maxMs: number): Promise<void> {
  const start = performance.now();
  let last = start;
  for (;;) {
    await new Promise((r) => setImmediate(r));
    const now = performance.now();
    if (now - last < 1 || now - start > maxMs) return;
    last = now;
  }
}

async function closeListener(listener: Server, boundMs: number): Promise<void> {
  // Closing a listening socket makes the kernel reset the connections it has completed that node
  // has not yet accepted; a balancer that sent a POST on one cannot repeat it (nginx, which has no
  // readiness checks and still sends, answers it 502). Closed at a calm moment, right after node
  // accepted what was waiting, that window is a fraction of a millisecond, not the time of
  // whatever the stop was busy with.
  await calmMoment(1_000);
  return new Promise((resolve, reject) => {
    const sweep = setInterval(() => listener.closeIdleConnections(), 50);
    const cut = setTimeout(() => listener.closeAllConnections(), boundMs);
    listener.close((error) => {
      clearInterval(sweep);
      clearTimeout(cut);
      if (error) reject(error);
      else resolve();
    });
    listener.closeIdleConnections();
  });
}

let stopping = false;
/**
 * SIGTERM (docs/operations.md, "Draining"): /readyz turns 503 at once while requests are still
 * served for DRAIN_MS with `Connection: close`, so the balancer moves the traffic elsewhere; then
 * the lifecycle's stop steps, each run even if one before it fails. A second signal skips the rest
 * of the drain. SHUTDOWN_GRACE_MS bounds the whole of it.
 */
async function shutdown(signal: string) {
  if (stopping) {
    logger.info({ signal }, "second signal: ending the drain now");
    return entry.lifecycle.endDrain();
  }
  stopping = true;
  const drained = entry.lifecycle.drain();
  const plan = entry.lifecycle.shutdownPlan();
  logger.info({ signal, drainMs: plan.drainMs }, "shutting down");
  const force = setTimeout(() => {
    logger.error({ graceMs: plan.graceMs }, "the stop took longer than SHUTDOWN_GRACE_MS: exiting");
    logger.flush();
    process.exit(1);
  }, plan.graceMs);
  force.unref();
  await drained;
  const failures = await entry.lifecycle.stop({
    closeListener: () => closeListener(server, plan.listenerCloseMs),
    closeMetricsListener: metricsServer ? () => closeListener(metricsServer, 1_000) : undefined,
    closeDevServer: vite ? () => vite!.close() : undefined,
    onFailure: (step, error) => logger.error({ err: error, step }, "a stop step failed"),
  });
  logger.info({ failedSteps: failures.map((f) => f.step) }, "stopped");
  logger.flush();
  process.exit(failures.length > 0 ? 1 : 0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
