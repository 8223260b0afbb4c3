import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { REQUEST_ID_HEADER, runWithRequestId } from "./request-id.server";

export type RequestInfo = {
  ip: string;
  requestId: string;
  /** The matched route's pattern, for metrics; set by the first root middleware. */
  route?: string;
};

// X-Forwarded-For only as far as TRUST_PROXY allows.
export const requestInfoContext = createContext<RequestInfo>({ ip: "unknown", requestId: "" });

export function clientIp(context: Readonly<RouterContextProvider> | undefined): string {
  return context?.get(requestInfoContext).ip ?? "unknown";
}

export function requestIdOf(context: Readonly<RouterContextProvider> | undefined): string | null {
  return context?.get(requestInfoContext).requestId || null;
}

/** The node pipeline sets the header on the socket too; this covers the request handler alone (tests, the raw stream). */
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
