import { createContext, type RouterContextProvider } from "react-router";

export type RequestInfo = {
  ip: string;
  /**
   * The matched route's pattern, for metrics: the pipeline (node-server.server.ts) creates the info
   * with a fixed label and the first root middleware (app/metrics/route-label.server.ts) overwrites it.
   * Absent where no pipeline reads it (tests, the raw event stream's own context).
   */
  route?: string;
};

// Set by server.ts from the socket (and X-Forwarded-For only as far as TRUST_PROXY allows).
export const requestInfoContext = createContext<RequestInfo>({ ip: "unknown" });

export function clientIp(context: Readonly<RouterContextProvider> | undefined): string {
  return context?.get(requestInfoContext).ip ?? "unknown";
}

export function userAgent(request: Request): string | null {
  return request.headers.get("user-agent")?.slice(0, 512) ?? null;
}

export function isApiRequest(request: Request): boolean {
  return new URL(request.url).pathname.startsWith("/api/");
}
