import type { IncomingMessage, ServerResponse } from "node:http";
import type { MiddlewareFunction, RouterContextProvider } from "react-router";
import { getSessionUser, streamOptionsFor } from "../auth/session.server";
import { writeUserEventStream } from "../events/raw-stream.server";
import { EVENT_STREAM_HEADERS, lastEventIdOf } from "../events/stream.server";
import { refuseBadHost, requestOrigin } from "../http/request-guards.server";
import { apiError } from "../http/responses";
import { noteFailure } from "../http/unavailable.server";
import { createRequestContext } from "./lifecycle.server";
import { rootMiddleware } from "./root-middleware.server";

// GET /api/events on node's request and response, outside React Router (decision 014), behind the
// same root middleware as the route (app/routes/api.events.ts) that the dev server and tests use.

type Middleware = MiddlewareFunction<Response>;
type MiddlewareArgs = Parameters<Middleware>[0];

const PATH = "/api/events";

/** A database outage is not logged: the root middleware makes the 500 a 503 (app/http/unavailable.server.ts). */
function errorResponse(error: unknown, context: RouterContextProvider): Response {
  if (error instanceof Response) return error;
  if (noteFailure(error, context)) console.error(`database unavailable: ${String(error)}`);
  else console.error(error);
  return new Response("Unexpected Server Error", { status: 500 });
}

/**
 * Keeps the two rules of React Router's runner: `next()` never throws, and a returned or thrown
 * Response answers instead. React Router exports no runner; raw-parity.test.ts checks both paths agree.
 */
function runMiddleware(
  list: readonly Middleware[],
  args: MiddlewareArgs,
  opening: Response,
): Promise<Response> {
  const at = async (i: number): Promise<Response> => {
    const middleware = list[i];
    if (!middleware) return opening;
    let below: Response | undefined;
    const next = async () => (below ??= await at(i + 1));
    try {
      const value = await middleware(args, next);
      return value instanceof Response ? value : (below ?? (await next()));
    } catch (error) {
      return errorResponse(error, args.context as RouterContextProvider);
    }
  };
  return at(0);
}

function requestOf(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {} // a value fetch's Headers refuses is one no middleware can use
  }
  const url = req.url ?? "";
  const query = url.includes("?") ? url.slice(url.indexOf("?")) : "";
  return new Request(`${origin}${PATH}${query}`, { headers });
}

/** Set-Cookie included, which Headers would join with commas. */
function headerPairs(headers: Headers): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of headers) if (name !== "set-cookie") pairs.push([name, value]);
  for (const cookie of headers.getSetCookie()) pairs.push(["set-cookie", cookie]);
  return pairs;
}

async function send(res: ServerResponse, response: Response) {
  const body = Buffer.from(await response.arrayBuffer());
  if (res.headersSent || res.destroyed) return;
  res.statusCode = response.status;
  for (const [name, value] of headerPairs(response.headers)) res.appendHeader(name, value);
  res.end(body);
}

/** `origin` is the one the Host guard accepted; without it (a bare listener, the tests) the guard runs here. */
export async function serveEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  ip: string,
  origin: string | null = requestOrigin(req, 0),
): Promise<void> {
  if (refuseBadHost(origin, res)) return;
  const request = requestOf(req, origin!);
  const context: RouterContextProvider = createRequestContext({ ip });
  const opening = new Response(null, { headers: EVENT_STREAM_HEADERS });
  const args: MiddlewareArgs = { request, context, params: {}, pattern: PATH, url: new URL(request.url) };
  const response = await runMiddleware(rootMiddleware, args, opening);
  if (response !== opening) return send(res, response);
  // The gate let the request through, so the session it resolved is a user.
  const user = await getSessionUser({ request, context });
  if (!user) return send(res, apiError(401, "unauthorized"));
  writeUserEventStream(res, user.id, headerPairs(response.headers), {
    ...streamOptionsFor(user, ip),
    lastEventId: lastEventIdOf(request),
  });
}
