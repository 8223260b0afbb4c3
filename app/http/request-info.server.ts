import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { REQUEST_ID_HEADER, runWithRequestId } from "./request-id.server";

/** The client address and the request id the node pipeline gave the request (request-id.server.ts). */
export type RequestInfo = {
  ip: string;
  requestId: string;
  /**
   * The matched route's pattern, for metrics: the pipeline (node-server.server.ts) creates the info
   * with a fixed label and the first root middleware (app/metrics/route-label.server.ts) overwrites it.
   * Absent where no pipeline reads it (tests, the raw event stream's own context).
   */
  route?: string;
};

// Set by server.ts from the socket (and X-Forwarded-For only as far as TRUST_PROXY allows).
export const requestInfoContext = createContext<RequestInfo>({ ip: "unknown", requestId: "" });

export function clientIp(context: Readonly<RouterContextProvider> | undefined): string {
  return context?.get(requestInfoContext).ip ?? "unknown";
}

/** The request's id; null outside a request (a context built by hand without one). */
export function requestIdOf(context: Readonly<RouterContextProvider> | undefined): string | null {
  return context?.get(requestInfoContext).requestId || null;
}

/**
 * The first root middleware: everything below runs as part of the request's id (so console.error
 * deep in a loader names it, and audit rows and tasks carry it), and every answer React Router
 * gives, error pages included, says it in X-Request-Id. The node pipeline sets the header on the
 * socket too (static files, 404s and refusals that never reach React Router); this covers the
 * request handler alone (the tests' app, the event stream served on the socket).
 */
export const requestIdMiddleware: MiddlewareFunction<Response> = async ({ context }, next) => {
  const id = context.get(requestInfoContext).requestId;
  const response = await runWithRequestId(id, next);
  if (response instanceof Response && id) {
    try {
      response.headers.set(REQUEST_ID_HEADER, id);
    } catch {} // a Response with immutable headers (a redirect built by Response.redirect)
  }
  return response;
};

export function userAgent(request: Request): string | null {
  return request.headers.get("user-agent")?.slice(0, 512) ?? null;
}

export function isApiRequest(request: Request): boolean {
  return new URL(request.url).pathname.startsWith("/api/");
}
