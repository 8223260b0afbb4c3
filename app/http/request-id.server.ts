import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { remember } from "@epic-web/remember";

// Request ids (decision 026): "Reference: …" from a user leads to everything that request did.

export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * Bounded, with no spaces, quotes, CR/LF or commas, so it cannot split a log line, a header or a
 * CSV cell; first character alphanumeric, so a spreadsheet never reads it as a formula.
 */
const SANE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === "string" && SANE_ID.test(value);
}

/** Without a trusted proxy the header is the client's word, which could make its requests look like someone else's. */
export function resolveRequestId(incoming: string | string[] | null | undefined, trustProxy: number): string {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  if (trustProxy > 0 && isSaneRequestId(value)) return value;
  return randomUUID();
}

type Store = { requestId: string | undefined };

// One store per process: tests load the app a second time through Vite, and the dev server reloads it.
const store = remember("requestIdStore", () => new AsyncLocalStorage<Store>());

/** Everything `fn` starts, awaited or not, belongs to the request. */
export function runWithRequestId<T>(requestId: string | null | undefined, fn: () => T): T {
  ensureConsoleTagged();
  return store.run({ requestId: requestId ?? undefined }, fn);
}

export function currentRequestId(): string | undefined {
  return store.getStore()?.requestId;
}

// By identity: a property would be copied by whatever wraps them in turn (a test's spy), passing for tagged.
const wrappers = remember("requestIdConsoleWrappers", () => new WeakSet<object>());
const METHODS = ["error", "warn", "info", "log", "debug"] as const;
type Logger = Record<(typeof METHODS)[number], (...args: unknown[]) => void>;

/** So an error logged deep in a domain module names its request without every caller passing the id along. */
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

/** Re-wraps a method something replaced since (a test's spy, a library patching console). */
function ensureConsoleTagged() {
  tagConsole(console);
}
