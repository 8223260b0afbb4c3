// One EventSource on /api/events per browser tab, shared by every feature that listens to system
// events (tasks, broadcasts). Listeners get every event of their type: remix-utils' useEventSource
// keeps only the latest value, so a burst could collapse into one.
import type { SystemEvent, SystemEventType } from "./event-types";

type Handler<T extends SystemEventType> = (event: Extract<SystemEvent, { type: T }>) => void;
type Listener = { type: SystemEventType | "open" | "error"; handler: (value: never) => void };

const listeners = new Set<Listener>();
let source: EventSource | null = null;
const attached = new Set<string>();

function attach(type: string) {
  if (!source || attached.has(type)) return;
  attached.add(type);
  source.addEventListener(type, (message) => {
    let value: unknown;
    if (type !== "open" && type !== "error") {
      try {
        value = JSON.parse((message as MessageEvent).data);
      } catch {
        return;
      }
    }
    for (const l of [...listeners]) if (l.type === type) (l.handler as (v: unknown) => void)(value);
  });
}

function add(listener: Listener): () => void {
  if (typeof window === "undefined") return () => {};
  listeners.add(listener);
  if (!source) {
    const opened = new EventSource("/api/events");
    source = opened;
    // The server closed this tab's stream for a newer one (per-user cap): stay closed, or the tabs
    // would take turns evicting each other; the next listener (a navigation) opens a fresh one.
    opened.addEventListener("evicted", () => {
      opened.close();
      if (source === opened) source = null;
    });
    attached.clear();
    for (const l of listeners) attach(l.type);
  }
  attach(listener.type);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      source?.close();
      source = null;
    }
  };
}

/** Calls `handler` for every event of `type` addressed to the signed-in user. */
export function onSystemEvent<T extends SystemEventType>(type: T, handler: Handler<T>): () => void {
  return add({ type, handler: handler as (value: never) => void });
}

/** Calls `handler` on every (re)connection: the moment to reconcile what may have been missed. */
export function onStreamOpen(handler: () => void): () => void {
  return add({ type: "open", handler });
}

export function onStreamError(handler: () => void): () => void {
  return add({ type: "error", handler });
}
