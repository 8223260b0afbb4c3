import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pino from "pino";
import { createRequestHandler, type ServerBuild } from "react-router";
import type * as Entry from "./app/entry.server";
import { loadDotEnv } from "./scripts/dotenv";

// node:http around the React Router build (decision 002): the request listener comes from the
// build's own entry, so this file holds no second copy of an app module.
loadDotEnv();
const production = process.env.NODE_ENV === "production";
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "0.0.0.0";
const logger = pino(
  { level: process.env.LOG_LEVEL ?? "info", redact: ["req.headers.cookie", "req.headers.authorization"] },
  pino.destination({ sync: false }),
);

type AppEntry = typeof Entry;

/** React Router types the entry module as its own entry only, so the server's exports are checked here. */
function appEntryOf(module: ServerBuild["entry"]["module"]): AppEntry {
  if (!isAppEntry(module))
    throw new Error("The build's entry.server lacks the server's exports: rebuild it.");
  return module;
}

function isAppEntry(module: object): module is AppEntry {
  return ["lifecycle", "createAppListener", "startMetricsListener"].every((name) => name in module);
}

function buildDirectory(): string {
  if (process.env.BUILD_DIR) return resolve(process.env.BUILD_DIR);
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, "server/index.js")) ? here : join(here, "build");
}

let build: ServerBuild | (() => Promise<ServerBuild>);
let getEntry: () => Promise<AppEntry>;
let vite: import("vite").ViteDevServer | undefined;
const httpServer = createServer();
const buildDir = buildDirectory();

if (production) {
  const loaded = (await import(pathToFileURL(join(buildDir, "server/index.js")).href)) as ServerBuild;
  // The build object itself, not a function: React Router then derives its route tables once.
  build = loaded;
  const entry = appEntryOf(loaded.entry.module);
  getEntry = async () => entry;
} else {
  // Vite's live-reload socket on this server's port, not a fixed one another Vite process may hold.
  vite = await import("vite").then((m) =>
    m.createServer({ server: { middlewareMode: true, hmr: { server: httpServer } } }),
  );
  const load = () => vite!.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  build = load;
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
// A restart makes every open tab reconnect at once: room for them in the accept queue.
server.listen({ port, host, backlog: 4096 }, () => {
  logger.info({ port, host, mode: production ? "production" : "development" }, "listening");
  if (!production) console.log(`Dashboard running at http://localhost:${port}`);
});
// The metrics token is never logged.
const metricsServer = await entry.startMetricsListener();
if (metricsServer)
  logger.info(
    { metricsPort: (metricsServer.address() as AddressInfo).port },
    "metrics listening on 127.0.0.1",
  );

/** Resolves right after a poll phase under a millisecond: node has just accepted every completed connection. */
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

/**
 * Idle keep-alive sockets are closed as they fall idle, after the drain, so closing one races no
 * request; requests still running get `boundMs`, then their sockets are cut.
 */
async function closeListener(listener: Server, boundMs: number): Promise<void> {
  // Closing a listening socket resets connections the kernel completed but node has not accepted (a
  // POST a balancer cannot repeat: 502); at a calm moment that window is a fraction of a millisecond.
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
/** SIGTERM: /readyz turns 503 while requests are still served for DRAIN_MS (docs/operations.md, "Draining"). */
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
