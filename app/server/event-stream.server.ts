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

// GET /api/events served on node's request and response, outside React Router (the server's
// listener, app/server/http-server.server.ts, routes it here;
// docs/decisions/014-event-streams-on-the-socket.md). The answer is the route's
// (app/routes/api.events.ts), which stays for the dev server and the tests: the same root
// middleware decides it (security headers, session with its renewed cookie, the access gate with
// its 401/403 JSON), then the same stream with its per-user cap, pings and cleanup.

type Middleware = MiddlewareFunction<Response>;
type MiddlewareArgs = Parameters<Middleware>[0];

const PATH = "/api/events";

/**
 * What React Router answers for an error that is not a Response; the error is logged, unless it
 * says the database is unreachable: that is noted as the entry's handleError notes it, and the
 * root middleware's unavailableMiddleware makes the 500 a 503 (app/http/unavailable.server.ts).
 */
function errorResponse(error: unknown, context: RouterContextProvider): Response {
  if (error instanceof Response) return error;
  if (noteFailure(error, context)) console.error(`database unavailable: ${String(error)}`);
  else console.error(error);
  return new Response("Unexpected Server Error", { status: 500 });
}

/**
 * The root middleware around `opening`, with the two rules of React Router's runner that these
 * middleware rely on: `next()` never throws (an error below becomes its Response, so the headers
 * and session middleware still decorate it), and a middleware that returns or throws a Response
 * answers instead of the rest. React Router exports no runner of its own; a static handler
 * (createStaticHandler) would run this one but also match routes, build a result context and
 * data-strategy objects for a request that holds its socket for hours. raw-parity.test.ts asks both
 * paths the same questions and expects the same answers.
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

/** The request as middleware reads it (headers as node received them, the query as sent). */
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

/** Each header as its own pair, Set-Cookie included (Headers would join those with commas). */
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

/**
 * Answers GET /api/events: 401/403 as the route would, else the caller's event stream. `origin`
 * is the one the server's Host guard accepted (node-server.server.ts); without it (a bare
 * listener, the tests) the same guard runs here.
 */
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
  // Anything but the stream's own opening (a refusal, an error) is sent as it is.
  if (response !== opening) return send(res, response);
  // The gate let the request through, so the session it resolved (cached in the context) is a user.
  const user = await getSessionUser({ request, context });
  if (!user) return send(res, apiError(401, "unauthorized"));
  writeUserEventStream(res, user.id, headerPairs(response.headers), {
    ...streamOptionsFor(user),
    lastEventId: lastEventIdOf(request),
  });
}
