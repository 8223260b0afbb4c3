import type { TFunction } from "i18next";
import { data, type HeadersArgs } from "react-router";
import { type Message, say } from "../i18n/message";
import { PAYLOAD_TOO_LARGE_CODE } from "./body-limits";

// Every refusal has one body, `{"error": CODE, ...details}` (docs/http-contract.md).

export function refusal<D extends object>(status: number, error: string, details: D, init?: ResponseInit) {
  return data({ error, ...details }, { ...init, status });
}

export function apiError(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  init?: ResponseInit,
) {
  return Response.json({ error, ...extra }, { ...init, status });
}

/** The shape server.ts's body guard answers too. */
export function payloadTooLarge(limit: number) {
  return apiError(413, PAYLOAD_TOO_LARGE_CODE, { limit });
}

// Every 429 goes through here so none can leave without Retry-After (docs/http-contract.md, "Limits").

export function tooManyRequestsInit(retryAfterSeconds: number) {
  const seconds = Math.max(1, Math.ceil(Number.isFinite(retryAfterSeconds) ? retryAfterSeconds : 60));
  return { status: 429 as const, headers: { "Retry-After": String(seconds) }, seconds };
}

export function retryMessage(retryAfterSeconds: number): Message {
  const { seconds } = tooManyRequestsInit(retryAfterSeconds);
  if (seconds === 1) return { key: "rateLimit.oneSecond" };
  if (seconds < 90) return { key: "rateLimit.seconds", values: { seconds } };
  return { key: "rateLimit.minutes", values: { minutes: Math.ceil(seconds / 60) } };
}

export function tooManyRequests(
  retryAfterSeconds: number,
  code = "rate_limited",
  extra: Record<string, unknown> = {},
) {
  const { status, headers, seconds } = tooManyRequestsInit(retryAfterSeconds);
  return apiError(status, code, { ...extra, retryAfter: seconds }, { headers });
}

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
 * React Router passes on only Set-Cookie of what routes return, so Retry-After is carried here
 * (too-many-requests.test.ts checks it); Cache-Control comes too, for answers carrying a secret.
 */
export function passRetryAfter({ actionHeaders, loaderHeaders, parentHeaders }: HeadersArgs): Headers {
  const headers = new Headers(parentHeaders);
  const retryAfter = actionHeaders.get("Retry-After") ?? loaderHeaders.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  const cacheControl = actionHeaders.get("Cache-Control");
  if (cacheControl) headers.set("Cache-Control", cacheControl);
  return headers;
}

/** Same-origin absolute paths only ("/x", never "//x" or "https://x"). */
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
