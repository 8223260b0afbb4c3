import { eventStream } from "remix-utils/sse/server";
import { type EventBus, systemBus } from "./bus.server";
import { endStreamsElsewhere, registerStreamEnder } from "./cluster.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "./event-types";

export const PING_INTERVAL_MS = 15_000;

type Options = { bus?: EventBus; pingMs?: number };

const open = new Set<() => void>();
const openByUser = new Map<string, Set<() => void>>();
let sequence = 0;

/** Streams one user's system events (plus a ping) as server-sent events. */
export function userEventStream(signal: AbortSignal, userId: string, options: Options = {}): Response {
  const bus = options.bus ?? systemBus();
  const response = eventStream(signal, (send, abort) => {
    let closed = false;
    let unsubscribe = () => {};
    let ping: ReturnType<typeof setInterval> | undefined;

    function stop() {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      unsubscribe();
      open.delete(close);
      const mine = openByUser.get(userId);
      mine?.delete(close);
      if (mine?.size === 0) openByUser.delete(userId);
    }
    function close() {
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
