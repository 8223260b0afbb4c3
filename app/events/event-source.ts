// One EventSource per browser tab. Listeners get every event of their type: remix-utils'
// useEventSource keeps only the latest value, so a burst could collapse into one.
import type { SystemEvent, SystemEventType } from "./event-types";

type Handler<T extends SystemEventType> = (event: Extract<SystemEvent, { type: T }>) => void;
type Listener = { type: SystemEventType | "open" | "error"; handler: (value: never) => void };

export type SourceLike = {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: Event) => void): void;
  close(): void;
};

export type StreamDeps = {
  open(url: string): SourceLike;
  random(): number;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
};

/** EventSource.CLOSED: the browser gave up and will not try again. */
const CLOSED = 2;
const OPEN = 1;
const EVENT_TYPES: readonly SystemEventType[] = ["task-completed", "task-progress", "broadcast"];
const RECONCILE = "reconcile";

/** Jittered, so the tabs of an instance that went away do not all come back at once. */
export function reconnectDelay(attempt: number, random: number): number {
  const base = Math.min(1_000 * 2 ** attempt, 30_000);
  return Math.round(base * (0.5 + random));
}

/** Once the browser gives up, this re-creates the EventSource with `?lastEventId=` (it cannot set the header). */
export function createEventStream(deps: StreamDeps) {
  const listeners = new Set<Listener>();
  let source: SourceLike | null = null;
  let lastEventId = "";
  let attempt = 0;
  let timer: unknown = null;

  function dispatch(type: string, value?: unknown) {
    for (const l of [...listeners]) if (l.type === type) (l.handler as (v: unknown) => void)(value);
  }

  function track(message: Event) {
    const id = (message as MessageEvent).lastEventId;
    if (id) lastEventId = id;
  }

  function connect() {
    const url = lastEventId ? `/api/events?lastEventId=${encodeURIComponent(lastEventId)}` : "/api/events";
    const opened = deps.open(url);
    source = opened;
    const current = () => source === opened;
    opened.addEventListener("open", () => {
      if (!current()) return;
      attempt = 0;
      dispatch("open");
    });
    opened.addEventListener("error", () => {
      if (!current()) return;
      dispatch("error");
      if (opened.readyState !== CLOSED) return; // the browser retries by itself
      source = null;
      schedule();
    });
    // Closed for a newer tab: stay closed, or the tabs would take turns evicting each other.
    opened.addEventListener("evicted", () => {
      opened.close();
      if (current()) source = null;
    });
    opened.addEventListener("ping", (message) => {
      if (current()) track(message);
    });
    opened.addEventListener(RECONCILE, (message) => {
      if (!current()) return;
      track(message);
      dispatch("open");
    });
    for (const type of EVENT_TYPES) {
      opened.addEventListener(type, (message) => {
        if (!current()) return;
        track(message);
        let value: unknown;
        try {
          value = JSON.parse((message as MessageEvent).data);
        } catch {
          return;
        }
        dispatch(type, value);
      });
    }
  }

  function schedule() {
    if (timer !== null || listeners.size === 0) return;
    timer = deps.setTimer(
      () => {
        timer = null;
        if (listeners.size > 0 && !source) connect();
      },
      reconnectDelay(attempt++, deps.random()),
    );
  }

  return {
    add(listener: Listener): () => void {
      listeners.add(listener);
      if (!source && timer === null) connect();
      else if (listener.type === "open" && source?.readyState === OPEN) {
        // It missed the open; told after the caller has finished setting up, and only if still listening.
        queueMicrotask(() => {
          if (listeners.has(listener)) (listener.handler as () => void)();
        });
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0) return;
        source?.close();
        source = null;
        if (timer !== null) deps.clearTimer(timer);
        timer = null;
      };
    },
  };
}

let shared: ReturnType<typeof createEventStream> | null = null;

function add(listener: Listener): () => void {
  if (typeof window === "undefined") return () => {};
  shared ??= createEventStream({
    open: (url) => new EventSource(url),
    random: Math.random,
    setTimer: (run, ms) => window.setTimeout(run, ms),
    clearTimer: (handle) => window.clearTimeout(handle as number),
  });
  return shared.add(listener);
}

export function onSystemEvent<T extends SystemEventType>(type: T, handler: Handler<T>): () => void {
  return add({ type, handler: handler as (value: never) => void });
}

/** Also when the server says the missed events are no longer kept: the moment to reconcile. */
export function onStreamOpen(handler: () => void): () => void {
  return add({ type: "open", handler });
}

export function onStreamError(handler: () => void): () => void {
  return add({ type: "error", handler });
}
