import { existsSync, readdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import pino from "pino";
import type { RouterContextProvider, ServerBuild } from "react-router";
import { limitRequestBodies } from "./app/http/body-limit.server";
import { redactUrl } from "./app/http/redact-url";
import { refuseBadHost, refuseCrossOrigin } from "./app/http/request-guards.server";
import { loadDotEnv } from "./scripts/dotenv";

// A lean server: static files only under /assets and for known public files, compression that
// skips event streams, asynchronous JSON logs (URLs with their secrets redacted), request bodies
// refused over their route's limit before anything reads them, /healthz, and a graceful stop.
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
  createRequestContext(info: { ip: string }): RouterContextProvider;
  eventStream?(req: IncomingMessage, res: ServerResponse, ip: string): Promise<void>;
};

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", Number(process.env.TRUST_PROXY ?? 0));

app.use(
  compression({
    filter: (req, res) => {
      const type = String(res.getHeader("Content-Type") ?? "");
      return !type.startsWith("text/event-stream") && compression.filter(req, res);
    },
  }),
);

app.use((req, res, next) => {
  const start = process.hrtime.bigint();
  res.on("finish", () => {
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    logger.info({
      method: req.method,
      url: redactUrl(req.originalUrl),
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
    });
  });
  next();
});

app.use(refuseBadHost);
app.use(refuseCrossOrigin);
app.use(limitRequestBodies());

let getBuild: () => Promise<ServerBuild>;
let viteClose: (() => Promise<void>) | undefined;

if (production) {
  const buildDir = process.env.BUILD_DIR ?? "build";
  const buildPath = new URL(`./${buildDir}/server/index.js`, import.meta.url).href;
  const build = (await import(buildPath)) as ServerBuild;
  getBuild = async () => build;
  app.use(
    "/assets",
    express.static(`${buildDir}/client/assets`, {
      immutable: true,
      maxAge: "1y",
      index: false,
      fallthrough: false,
    }),
  );
  const publicFiles = existsSync(`${buildDir}/client`)
    ? readdirSync(`${buildDir}/client`, { withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => f.name)
    : [];
  for (const file of publicFiles) {
    app.get(`/${file}`, (_req, res) => res.sendFile(file, { root: `${buildDir}/client`, maxAge: "1h" }));
  }
} else {
  const vite = await import("vite").then((m) => m.createServer({ server: { middlewareMode: true } }));
  viteClose = () => vite.close();
  app.use(vite.middlewares);
  getBuild = () => vite.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
}

const entry = async () => (await getBuild()).entry.module as unknown as AppEntry;
await (await entry()).lifecycle.start();

app.get("/healthz", async (_req, res) => {
  const ok = await (await entry()).lifecycle.health();
  res.status(ok ? 200 : 503).json({ ok });
});

const handler = createRequestHandler({
  build: getBuild,
  mode: production ? "production" : "development",
  getLoadContext: async (req) =>
    (await entry()).createRequestContext({ ip: req.ip ?? req.socket.remoteAddress ?? "unknown" }),
});
app.use((req, res, next) => {
  handler(req, res, next).catch(next);
});

// --- SSE: GET /api/events goes to the app's own handler on node's request and response, before
// Express, compression and React Router: Express alone cost ~3 KB of heap per open stream
// (docs/decisions/014-event-streams-on-the-socket.md). Keep this hook when rewriting the server.
const EVENTS_PATH = /^\/api\/events\/?(?:\?|$)/i;
/** Express's req.ip (X-Forwarded-For believed for TRUST_PROXY hops) for a request it never saw. */
function clientIp(req: IncomingMessage): string {
  const view = Object.create(app.request, {
    headers: { value: req.headers },
    connection: { value: req.socket },
    socket: { value: req.socket },
  }) as express.Request;
  return view.ip ?? req.socket.remoteAddress ?? "unknown";
}
const server = createServer((req, res) => {
  if (req.method !== "GET" || !EVENTS_PATH.test(req.url ?? "")) return app(req, res);
  entry()
    .then((e) => (e.eventStream ? e.eventStream(req, res, clientIp(req)) : app(req, res)))
    .catch((error) => {
      logger.error({ err: error }, "event stream failed");
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
});
// A restart makes every open tab reconnect at once: room for them in the accept queue (node's default
// is 511; the kernel caps it at net.core.somaxconn), or the overflow is reset or delayed by seconds.
server.listen({ port, host, backlog: 4096 }, () => {
  logger.info({ port, host, mode: production ? "production" : "development" }, "listening");
  if (!production) console.log(`Dashboard running at http://localhost:${port}`);
});
// --- end SSE

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  server.close();
  const force = setTimeout(() => process.exit(1), Number(process.env.SHUTDOWN_GRACE_MS ?? 10_000));
  force.unref();
  try {
    await (await entry()).lifecycle.stop();
    await viteClose?.();
    server.closeAllConnections();
  } finally {
    logger.flush();
    process.exit(0);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
