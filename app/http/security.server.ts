import { randomBytes } from "node:crypto";
import { createContext, type MiddlewareFunction } from "react-router";
import { createCsrfMiddleware } from "remix-utils/middleware/csrf";
import { createSecureHeadersMiddleware } from "remix-utils/middleware/secure-headers";
import { env, secureCookies } from "../env.server";
import { apiError } from "./responses";

export const nonceContext = createContext<string>("");

// Signed by their sender instead of protected by the browser's origin headers.
const CSRF_EXEMPT = ["/api/webhooks/"];

function refuse(request: Request) {
  return new URL(request.url).pathname.startsWith("/api/")
    ? apiError(403, "forbidden", { reason: "cross_site_request" })
    : new Response("Cross-site request refused", { status: 403 });
}

const csrf = createCsrfMiddleware({
  // Browsers always send Sec-Fetch-Site or Origin on a state-changing request; tools such as
  // curl send neither and cannot carry a victim's cookies, so they pass on to the session check.
  allowMissingOrigin: true,
  onUntrustedRequest: refuse,
});

/** remix-utils' Sec-Fetch-Site check, plus an Origin check for browsers that send no Sec-Fetch-Site. */
export const csrfMiddleware: MiddlewareFunction<Response> = async (args, next) => {
  const { request } = args;
  const { pathname, origin } = new URL(request.url);
  if (CSRF_EXEMPT.some((p) => pathname.startsWith(p))) return next();
  if (!["GET", "HEAD", "OPTIONS"].includes(request.method) && !request.headers.get("Sec-Fetch-Site")) {
    const claimed = request.headers.get("Origin");
    if (claimed && claimed !== "null" && claimed !== origin && claimed !== publicOrigin())
      return refuse(request);
  }
  return csrf(args, next);
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

function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * remix-utils' secure headers plus a per-request CSP nonce, which its static options cannot give.
 * The dev server injects its own unsigned scripts, so the CSP is sent only outside development.
 */
export const securityHeadersMiddleware: MiddlewareFunction<Response> = async (args, next) => {
  const nonce = randomBytes(16).toString("base64");
  args.context.set(nonceContext, nonce);
  const response = await secureHeaders(args, next);
  if (response instanceof Response && env().NODE_ENV !== "development") {
    response.headers.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  }
  return response as Response;
};
