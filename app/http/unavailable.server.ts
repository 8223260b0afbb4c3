import type { MiddlewareFunction, RouterContextProvider } from "react-router";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { apiError } from "./responses";

// While the database cannot be reached (a restart, a failover) a request that needs it is answered
// 503 with Retry-After, at once, never 500 and never a hang (docs/http-contract.md, "Outages").
// React Router catches what a loader, action or middleware throws and renders it as a 500 before
// any middleware sees the error, so the one place works in three steps: the entry's handleError
// notes that this request met an unreachable database (noteFailure), the entry renders a page's
// error boundary again as a 503 (unavailablePage), and the root middleware below turns whatever
// 5xx answer remains into the 503 (an API's `{"error":"unavailable"}`).

/** What Retry-After says: about the time a restart takes; readiness tells balancers the rest. */
const RETRY_AFTER_SECONDS = 2;

const UNAVAILABLE_CODE = "unavailable";

// Keyed by the request's router context: React Router calls handleError with the outer request
// but runs `.data` requests' middleware with a request of its own; the context is the same object.
const met = new WeakSet<object>();

/**
 * Called with every error React Router reports (app/entry.server.tsx): true when the error, or an
 * earlier one of the same request, says the database is unreachable (then the request gets 503).
 */
export function noteFailure(error: unknown, context: Readonly<RouterContextProvider> | undefined): boolean {
  if (context && isDatabaseUnavailable(error)) met.add(context);
  return context ? met.has(context) : isDatabaseUnavailable(error);
}

export function metUnavailableDatabase(context: Readonly<RouterContextProvider> | undefined): boolean {
  return context !== undefined && met.has(context);
}

/** `503 {"error":"unavailable","retryAfter":2}` with `Retry-After: 2`. */
function serviceUnavailable(): Response {
  return apiError(
    503,
    UNAVAILABLE_CODE,
    { retryAfter: RETRY_AFTER_SECONDS },
    { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
  );
}

/** What a page's document is rendered again with: its error boundary shows `message`. */
export function unavailablePage(message: string): Response {
  return Response.json({ error: UNAVAILABLE_CODE, message }, { status: 503 });
}

/** Retry-After for answers made outside React Router (node:http's writeHead). */
export const unavailableHeaders = { "Retry-After": String(RETRY_AFTER_SECONDS) } as const;

/**
 * A root middleware: a 5xx answer of a request that met an unreachable database becomes the 503.
 * API paths get the JSON refusal; pages and `.data` requests keep the body React Router rendered
 * (the entry already made a page's a 503 error page) under status 503.
 */
export const unavailableMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  let response: Response | undefined;
  try {
    response = await next();
  } catch (error) {
    // On a resource route (an API) React Router throws a failing middleware's error through next()
    // (a page's becomes its error boundary): a session read during an outage lands here.
    if (!noteFailure(error, context)) throw error;
    console.error(`database unavailable: ${String(error)}`);
    return serviceUnavailable();
  }
  if (!(response instanceof Response) || response.status < 500 || !metUnavailableDatabase(context))
    return response;
  if (new URL(request.url).pathname.startsWith("/api/")) return serviceUnavailable();
  const headers = new Headers(response.headers);
  headers.set("Retry-After", String(RETRY_AFTER_SECONDS));
  return new Response(response.body, { status: 503, statusText: "Service Unavailable", headers });
};
