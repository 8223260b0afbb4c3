import { randomBytes } from "node:crypto";
import { createContext, type MiddlewareFunction } from "react-router";
import { createSecureHeadersMiddleware } from "remix-utils/middleware/secure-headers";
import { env, secureCookies } from "../env.server";
import { noteRoute } from "../metrics/route-label.server";
import { apiError } from "./responses";

export const nonceContext = createContext<string>("");

// Signed by their sender instead of protected by the browser's origin headers.
const CSRF_EXEMPT = ["/api/webhooks/"];

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a request must be refused as coming from another origin. A state-changing request must
 * come from this very origin. Browsers send Sec-Fetch-Site and/or Origin: "same-site" (a sibling
 * subdomain) is refused like "cross-site", and an Origin must be the request's own or BASE_URL's
 * (a proxy in front may change the scheme or host the app sees). Tools such as curl send neither
 * header and cannot carry a victim's cookies: they pass on to the session check. Signed webhooks
 * are exempt. One rule, applied by server.ts before React Router (whose own origin check would
 * answer 400 first) and by the root middleware under any other server.
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

/**
 * An /api/* or /scim/* request carrying a bearer token and no cookie at all: a browser never adds
 * the header by itself, so another site cannot make a victim send it; the token is the whole credential.
 */
function isBearerOnly(request: { pathname: string; headers: { get(name: string): string | null } }) {
  return (
    (request.pathname.startsWith("/api/") || request.pathname.startsWith("/scim/")) &&
    /^Bearer /i.test(request.headers.get("Authorization") ?? "") &&
    request.headers.get("Cookie") === null
  );
}

/** The refusal of a cross-origin request, pages and /api/* alike: the one refusal body. */
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

// Built once; only the nonce changes per request.
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

/**
 * remix-utils' secure headers plus a per-request CSP nonce, which its static options cannot give.
 * The dev server injects its own unsigned scripts, so the CSP is sent only outside development.
 */
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
