import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { counterTotals } from "../../db/counted";
import { db } from "../db.server";
import { env } from "../env.server";
import { openStreamCount } from "../events/stream.server";
import { metrics, observeRequest } from "./metrics.server";

// GET /metrics (decision 025): on the main port with METRICS_TOKEN, and/or on 127.0.0.1:METRICS_PORT
// without one; with neither, nothing serves metrics.

export const METRICS_PATH = "/metrics";

const PENDING = "tasks.status.pending";
const PROCESSING = "tasks.status.processing";

async function collect() {
  const m = metrics();
  m.openStreams.set(openStreamCount());
  // Maintained counters (decision 010), whatever the size of `task`.
  const totals = await counterTotals(db(), "", [PENDING, PROCESSING]);
  m.queueDepth.set({ status: "pending" }, totals[PENDING]);
  m.queueDepth.set({ status: "processing" }, totals[PROCESSING]);
  const outgoing = await db()
    .selectFrom("webhook_message")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
    .where("status", "=", "pending")
    .executeTakeFirst();
  m.outgoingQueue.set(Number(outgoing?.n ?? 0));
  m.outgoingOldest.set(
    outgoing?.oldest ? Math.max(0, (Date.now() - Date.parse(String(outgoing.oldest))) / 1000) : 0,
  );
}

export async function metricsText(): Promise<{ contentType: string; body: string }> {
  // A database that is down must not cost the process metrics (they say why it is down).
  await collect().catch(() => {});
  const { registry } = metrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Constant time: both sides are hashed to the same length first. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer +(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "";
  return timingSafeEqual(digest(presented), digest(token));
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function send(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "GET" && req.method !== "HEAD")
    return answer(res, 405, "Method Not Allowed\n", { Allow: "GET, HEAD" });
  metricsText().then(
    ({ contentType, body }) => {
      if (res.destroyed) return;
      res.writeHead(200, {
        "Content-Type": contentType,
        "Cache-Control": "no-store",
        "Content-Length": Buffer.byteLength(body),
      });
      res.end(req.method === "HEAD" ? undefined : body);
    },
    () => answer(res, 500, "Internal Server Error\n"),
  );
}

/** False when the main port serves no metrics (React Router answers 404). */
export function serveMetrics(req: IncomingMessage, res: ServerResponse): boolean {
  const token = env().METRICS_TOKEN;
  if (!token) return false;
  if (!tokenMatches(req.headers.authorization, token)) {
    answer(res, 401, "Unauthorized\n", { "WWW-Authenticate": 'Bearer realm="metrics"' });
    return true;
  }
  send(req, res);
  return true;
}

/** A browser page on the same machine could otherwise read the port through DNS rebinding. */
function loopbackHost(req: IncomingMessage): boolean {
  const host = (req.headers.host ?? "").toLowerCase().replace(/:\d+$/, "");
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
}

function loopbackListener(req: IncomingMessage, res: ServerResponse) {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== METRICS_PATH || !loopbackHost(req)) return answer(res, 404, "Not Found\n");
  send(req, res);
}

export async function startMetricsListener(port = env().METRICS_PORT): Promise<Server | undefined> {
  if (port === undefined) return undefined;
  const server = createServer(loopbackListener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

export const metricsEndpoint = { observe: observeRequest, serve: serveMetrics };
