import { eventStream } from "remix-utils/sse/server";
import { type EventBus, systemBus } from "./bus.server";
import { endStreamsElsewhere, registerStreamEnder } from "./cluster.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "./event-types";

export const PING_INTERVAL_MS = 15_000;

/**
 * Streams one user may hold on this instance. A new one past the cap closes that user's oldest
 * rather than being refused: a person with many tabs keeps a live newest tab (an evicted tab's
 * EventSource reconnects and reconciles through GET /api/tasks), while a script that opens
 * hundreds still holds no more than ten subscriptions.
 */
export const MAX_STREAMS_PER_USER = 10;

/** The last frame of a stream closed for a newer one; the client stops instead of reconnecting. */
export const EVICTED_EVENT = "evicted";

/** `until`: the session's expiry; the stream ends then, and the browser reconnects (or gets 401). */
type Options = { bus?: EventBus; pingMs?: number; maxPerUser?: number; until?: string };

const MAX_TIMER_MS = 2 ** 31 - 1;

type Close = (evicted?: boolean) => void;
const open = new Set<Close>();
const openByUser = new Map<string, Set<Close>>();
let sequence = 0;

/** Streams one user's system events (plus a ping) as server-sent events. */
export function userEventStream(signal: AbortSignal, userId: string, options: Options = {}): Response {
  const bus = options.bus ?? systemBus();
  const response = eventStream(signal, (send, abort) => {
    let closed = false;
    let unsubscribe = () => {};
    let ping: ReturnType<typeof setInterval> | undefined;
    let expiry: ReturnType<typeof setTimeout> | undefined;

    function stop() {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      clearTimeout(expiry);
      unsubscribe();
      open.delete(close);
      const mine = openByUser.get(userId);
      mine?.delete(close);
      if (mine?.size === 0) openByUser.delete(userId);
    }
    function close(evicted = false) {
      // Tells the tab not to reconnect, or two tabs past the cap would evict each other forever.
      if (evicted) safeSend({ event: EVICTED_EVENT, data: "too many open streams" });
      stop();
      // remix-utils' close() also closes the controller, which throws when the client already went.
      try {
        abort();
      } catch {}
    }

    // On Node 20 request.signal may never fire when the client goes away (react-router#13601,
    // undici#3644); the next write then throws "Controller is already closed". Any throw means
    // the client is gone, so it ends the subscription instead of leaking it.
    function safeSend(message: { event: string; data: string; id?: string }) {
      if (closed) return;
      try {
        send(message);
      } catch {
        close();
      }
    }

    unsubscribe = bus.subscribe(SYSTEM_EVENT_CHANNEL, userId, (event: SystemEvent) => {
      safeSend({ event: event.type, id: String(++sequence), data: JSON.stringify(event) });
    });
    ping = setInterval(
      () => safeSend({ event: "ping", data: new Date().toISOString() }),
      options.pingMs ?? PING_INTERVAL_MS,
    );
    ping.unref?.();
    if (options.until) {
      expiry = setTimeout(
        () => close(),
        Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(options.until) - Date.now())),
      );
      expiry.unref?.();
    }
    const mine = openByUser.get(userId) ?? new Set();
    // A Set keeps insertion order, so the first entries are the user's oldest streams.
    for (const oldest of [...mine].slice(
      0,
      Math.max(0, mine.size - (options.maxPerUser ?? MAX_STREAMS_PER_USER) + 1),
    ))
      oldest(true);
    open.add(close);
    openByUser.set(userId, (openByUser.get(userId) ?? new Set()).add(close));
    // An opening frame, so the browser fires `open` (and the client reconciles) at once.
    safeSend({ event: "ping", data: new Date().toISOString() });
    return stop;
  });
  response.headers.set("Cache-Control", "no-cache, no-transform");
  response.headers.set("X-Accel-Buffering", "no");
  return response;
}

export function openStreamCount(): number {
  return open.size;
}

/**
 * Ends a user's streams when their sessions end (sign-out, disable, delete, password reset), so
 * events stop at once; browsers whose session is still valid simply reconnect.
 */
export function closeStreamsOf(userId: string) {
  closeLocalStreamsOf(userId);
  // Other instances may hold this user's streams too (PostgreSQL LISTEN/NOTIFY; none on SQLite).
  void endStreamsElsewhere(userId);
}

function closeLocalStreamsOf(userId: string) {
  for (const close of [...(openByUser.get(userId) ?? [])]) close();
}
registerStreamEnder(closeLocalStreamsOf);

/** Ends every stream, so a stopping server is not held open by idle connections. */
export function closeAllStreams() {
  for (const close of [...open]) close();
}
