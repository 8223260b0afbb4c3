import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { remember } from "@epic-web/remember";

// Request ids (docs/decisions/026-request-ids.md): every request gets one, answered in X-Request-Id,
// written on its log lines and on the audit rows and tasks it creates, and shown on error pages, so
// "Reference: …" from a user leads to everything that request did.

export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * What an id taken from a proxy may look like: a UUID, a hex or base32/64url token, a Heroku or
 * AWS-style "Root=1-…" (no "=" though). Bounded, so it cannot bloat rows and log lines; no spaces,
 * quotes, CR/LF or commas, so it cannot split a log line, a header or a CSV cell; first character
 * alphanumeric, so a spreadsheet never reads it as a formula (=, +, -, @).
 */
const SANE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === "string" && SANE_ID.test(value);
}

/**
 * The id of a request: the incoming X-Request-Id when a proxy we trust (TRUST_PROXY > 0, as for
 * X-Forwarded-For) may have set it and it is sane, so one id follows the request from the edge
 * through us; otherwise a fresh one. Without a trusted proxy the header is the client's own word,
 * and a client choosing its id could make its requests look like someone else's in the logs.
 */
export function resolveRequestId(incoming: string | string[] | null | undefined, trustProxy: number): string {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  if (trustProxy > 0 && isSaneRequestId(value)) return value;
  return randomUUID();
}

type Store = { requestId: string | undefined };

// One store per process, shared by every instance of this module: tests load the app a second
// time through Vite, and the dev server reloads it (docs/decisions/002-lean-server.md).
const store = remember("requestIdStore", () => new AsyncLocalStorage<Store>());

/** Runs `fn` (and everything it starts, awaited or not) as part of the request `requestId`. */
export function runWithRequestId<T>(requestId: string | null | undefined, fn: () => T): T {
  ensureConsoleTagged();
  return store.run({ requestId: requestId ?? undefined }, fn);
}

/** The id of the request the calling code works for, if any. */
export function currentRequestId(): string | undefined {
  return store.getStore()?.requestId;
}

// Our wrappers, by identity: a property on them would be copied by whatever wraps them in turn
// (a test's spy copies the function's own properties), which would then pass for tagged.
const wrappers = remember("requestIdConsoleWrappers", () => new WeakSet<object>());
const METHODS = ["error", "warn", "info", "log", "debug"] as const;
type Logger = Record<(typeof METHODS)[number], (...args: unknown[]) => void>;

/**
 * Prefixes what `target` logs during a request with "[requestId=…]", so an error logged deep in a
 * domain module (console.error is the app's error log) names its request without every caller
 * passing the id along. Wraps whatever each method is now (another wrapper, a test's spy).
 */
export function tagConsole(target: Logger) {
  for (const method of METHODS) {
    const inner = target[method];
    if (typeof inner !== "function" || wrappers.has(inner)) continue;
    const wrapped = function (this: unknown, ...args: unknown[]) {
      const id = currentRequestId();
      return id ? inner.call(this, `[requestId=${id}]`, ...args) : inner.apply(this, args);
    };
    wrappers.add(wrapped);
    target[method] = wrapped;
  }
}

/**
 * Called as each request starts: cheap when already done, and it re-wraps a method something
 * replaced since (a test spying on console.error, a library patching console).
 */
function ensureConsoleTagged() {
  tagConsole(console);
}
