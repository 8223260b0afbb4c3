import { randomBytes } from "node:crypto";
import { createContext, type MiddlewareFunction } from "react-router";
import { createSecureHeadersMiddleware } from "remix-utils/middleware/secure-headers";
import { env, secureCookies } from "../env.server";
import { noteRoute } from "../metrics/route-label.server";
import { apiError } from "./responses";

export const nonceContext = createContext<string>("");

const CSRF_EXEMPT = ["/api/webhooks/"];

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A state-changing request must come from this very origin ("same-site" is refused too); tools that
 * send neither Sec-Fetch-Site nor Origin cannot carry a victim's cookies and pass to the session check.
 */
export function isCrossOrigin(
  request: { method: string; pathname: string; headers: { get(name: string): string | null } },
  requestOrigin: string,
): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return false;
  if (CSRF_EXEMPT.some((p) => request.pathname.startsWith(p))) return false;
  if (isBearerOnly(request)) return false;
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null && site !== "same-origin") return true;
  const claimed = request.headers.get("Origin");
  return claimed !== null && claimed !== requestOrigin && claimed !== publicOrigin();
}

/** A browser never adds the header by itself, so another site cannot make a victim send it. */
function isBearerOnly(request: { pathname: string; headers: { get(name: string): string | null } }) {
  return (
    (request.pathname.startsWith("/api/") || request.pathname.startsWith("/scim/")) &&
    /^Bearer /i.test(request.headers.get("Authorization") ?? "") &&
    request.headers.get("Cookie") === null
  );
}

export function crossOriginRefusal(): Response {
  return apiError(403, "forbidden", { reason: "cross_site_request" });
}

export const csrfMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  const { pathname, origin } = new URL(request.url);
  const probe = { method: request.method, pathname, headers: request.headers };
  return isCrossOrigin(probe, origin) ? crossOriginRefusal() : next();
};

function publicOrigin(): string | null {
  const base = env().BASE_URL;
  return base ? new URL(base).origin : null;
}

const [secureHeaders] = createSecureHeadersMiddleware({
  // HSTS only where the public address is https; on plain http it would only confuse browsers.
  strictTransportSecurity: secureCookies(),
  referrerPolicy: "strict-origin-when-cross-origin",
  crossOriginEmbedderPolicy: false,
  permissionsPolicy: { camera: [], microphone: [], geolocation: [] },
});

const CSP_BEFORE_NONCE = "default-src 'self'; script-src 'self' 'nonce-";
const CSP_AFTER_NONCE = [
  "'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function contentSecurityPolicy(nonce: string): string {
  return CSP_BEFORE_NONCE + nonce + CSP_AFTER_NONCE;
}

/** The dev server injects its own unsigned scripts, so the CSP is sent only outside development. */
export const securityHeadersMiddleware: MiddlewareFunction<Response> = async (args, next) => {
  noteRoute(args); // the route label of the request's metrics (the first middleware: always runs)
  const nonce = randomBytes(16).toString("base64");
  args.context.set(nonceContext, nonce);
  const response = await secureHeaders(args, next);
  if (response instanceof Response && env().NODE_ENV !== "development") {
    response.headers.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  }
  return response as Response;
};
