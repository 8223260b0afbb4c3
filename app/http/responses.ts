import type { TFunction } from "i18next";
import { data, type HeadersArgs } from "react-router";
import { type Message, say } from "../i18n/message";
import { PAYLOAD_TOO_LARGE_CODE } from "./body-limits";

// Every refusal has one body, the contract's `{"error": CODE, ...details}` (docs/http-contract.md):
// JSON on /api/* (apiError), React Router data on pages (refusal), which a form reads from its
// action's answer or an error boundary shows. Pages add what they show (`formError`, `message`).

/** A refusal as a page answers it: returned from an action (the form shows it) or thrown (the error boundary does). */
export function refusal<D extends object>(status: number, error: string, details: D, init?: ResponseInit) {
  return data({ error, ...details }, { ...init, status });
}

/** A refusal as JSON: every /api route, and code that answers outside React Router (server.ts, middleware). */
export function apiError(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  init?: ResponseInit,
) {
  return Response.json({ error, ...extra }, { ...init, status });
}

/** `413 {"error":"payload_too_large","limit":N}`: the shape server.ts's body guard answers too. */
export function payloadTooLarge(limit: number) {
  return apiError(413, PAYLOAD_TOO_LARGE_CODE, { limit });
}

// Every 429 goes through here so none can leave without Retry-After (docs/http-contract.md, "Limits").

/** Status and header of a 429, for code that answers outside React Router (server.ts). */
export function tooManyRequestsInit(retryAfterSeconds: number) {
  const seconds = Math.max(1, Math.ceil(Number.isFinite(retryAfterSeconds) ? retryAfterSeconds : 60));
  return { status: 429 as const, headers: { "Retry-After": String(seconds) }, seconds };
}

/** "Too many attempts. Try again in 30 seconds." / "… in 15 minutes." */
export function retryMessage(retryAfterSeconds: number): Message {
  const { seconds } = tooManyRequestsInit(retryAfterSeconds);
  if (seconds === 1) return { key: "rateLimit.oneSecond" };
  if (seconds < 90) return { key: "rateLimit.seconds", values: { seconds } };
  return { key: "rateLimit.minutes", values: { minutes: Math.ceil(seconds / 60) } };
}

/** The API flavour: `429 {"error":CODE,"retryAfter":N,...extra}` with `Retry-After: N`. */
export function tooManyRequests(
  retryAfterSeconds: number,
  code = "rate_limited",
  extra: Record<string, unknown> = {},
) {
  const { status, headers, seconds } = tooManyRequestsInit(retryAfterSeconds);
  return apiError(status, code, { ...extra, retryAfter: seconds }, { headers });
}

/**
 * The form flavour: `rate_limited` with the action's own data and a `formError` the form shows
 * (said with the request's `t`), with `Retry-After`.
 */
export function tooManyRequestsForm<T extends object>(retryAfterSeconds: number, body: T, t: TFunction) {
  const { status, headers } = tooManyRequestsInit(retryAfterSeconds);
  return refusal(
    status,
    "rate_limited",
    { ...body, formError: say(t, retryMessage(retryAfterSeconds)) },
    { headers },
  );
}

/**
 * The `headers` export of every route whose action or loader can answer 429: React Router passes
 * on only Set-Cookie of what they return (page and `.data` requests alike), so Retry-After is
 * carried here. Routes that use the helpers above are checked for it (too-many-requests.test.ts).
 * An action's Cache-Control comes along too: an answer carrying a secret (an invitation's link)
 * says `no-store`.
 */
export function passRetryAfter({ actionHeaders, loaderHeaders, parentHeaders }: HeadersArgs): Headers {
  const headers = new Headers(parentHeaders);
  const retryAfter = actionHeaders.get("Retry-After") ?? loaderHeaders.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  const cacheControl = actionHeaders.get("Cache-Control");
  if (cacheControl) headers.set("Cache-Control", cacheControl);
  return headers;
}

/** Accepts same-origin absolute paths only ("/x", never "//x" or "https://x"). */
export function safeRedirectPath(value: unknown, fallback = "/dashboard"): string {
  if (
    typeof value !== "string" ||
    !value.startsWith("/") ||
    value.startsWith("//") ||
    value.startsWith("/\\")
  ) {
    return fallback;
  }
  try {
    const url = new URL(value, "http://internal.invalid");
    if (url.origin !== "http://internal.invalid") return fallback;
    const path = url.pathname + url.search + url.hash;
    // Normalising "/.//x" yields "//x", which a browser reads as another host: check again.
    return path.startsWith("//") || path.startsWith("/\\") ? fallback : path;
  } catch {
    return fallback;
  }
}
