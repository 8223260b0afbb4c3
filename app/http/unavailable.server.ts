import type { MiddlewareFunction, RouterContextProvider } from "react-router";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { apiError } from "./responses";

// While the database cannot be reached a request is answered 503 with Retry-After, never 500 or a
// hang (docs/http-contract.md, "Outages"); React Router renders throws as 500 before middleware sees
// them, hence three steps: noteFailure, unavailablePage and the middleware below.

/** About the time a restart takes; readiness tells balancers the rest. */
const RETRY_AFTER_SECONDS = 2;

const UNAVAILABLE_CODE = "unavailable";

// Keyed by the router context: `.data` requests' middleware gets a request of React Router's own.
const met = new WeakSet<object>();

/** Also true when an earlier error of the same request said so. */
export function noteFailure(error: unknown, context: Readonly<RouterContextProvider> | undefined): boolean {
  if (context && isDatabaseUnavailable(error)) met.add(context);
  return context ? met.has(context) : isDatabaseUnavailable(error);
}

export function metUnavailableDatabase(context: Readonly<RouterContextProvider> | undefined): boolean {
  return context !== undefined && met.has(context);
}

function serviceUnavailable(): Response {
  return apiError(
    503,
    UNAVAILABLE_CODE,
    { retryAfter: RETRY_AFTER_SECONDS },
    { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
  );
}

export function unavailablePage(message: string): Response {
  return Response.json({ error: UNAVAILABLE_CODE, message }, { status: 503 });
}

export const unavailableHeaders = { "Retry-After": String(RETRY_AFTER_SECONDS) } as const;

/** API paths get the JSON refusal; pages keep the body React Router rendered, under status 503. */
export const unavailableMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  let response: Response | undefined;
  try {
    response = await next();
  } catch (error) {
    // On a resource route React Router throws a failing middleware's error through next().
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
