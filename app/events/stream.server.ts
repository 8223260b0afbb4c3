import { z } from "zod";
import { eventDelivered } from "../metrics/metrics.server";
import { type EventBus, systemBus } from "./bus.server";
import {
  endSessionStreamsElsewhere,
  endStreamsElsewhere,
  registerSessionStreamEnder,
  registerStreamEnder,
} from "./cluster.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "./event-types";

export const PING_INTERVAL_MS = 15_000;

/** Jitter on the browser's reconnection delay, so an instance's tabs do not all return at once. */
const RETRY_MS = 2_000;
const RETRY_JITTER_MS = 1_000;

/** Sent instead of missed events the log no longer holds: the client reconciles through GET /api/tasks. */
export const RECONCILE_EVENT = "reconcile";

/**
 * A new stream past the cap closes that user's oldest instead of being refused, so a person's
 * newest tab stays live while a script still holds no more than ten subscriptions.
 */
export const MAX_STREAMS_PER_USER = 10;

/** The last frame of a stream closed for a newer one; the client stops instead of reconnecting. */
export const EVICTED_EVENT = "evicted";

/**
 * Never compressed, cached or buffered by a proxy; `Connection: close` so a balancer does not
 * reuse the connection after a stopping instance ends it (a reset POST it cannot repeat: 502).
 */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "close",
  "X-Accel-Buffering": "no",
};

/** Where one stream's frames go; `write` answers false once the client is gone. */
export interface StreamSink {
  write(text: string): boolean;
  end(): void;
}

/**
 * `session` is the session's handle (never its id: it travels between instances), so signing out
 * ends that session's streams only and a viewed person's own streams stay.
 */
export type StreamOptions = {
  bus?: EventBus;
  maxPerUser?: number;
  until?: string;
  session?: string;
  lastEventId?: number;
  /**
   * Asked again whenever what grants access may have changed (recheckStreams): false ends the
   * stream, and the browser's reconnect meets the gate as any request does.
   */
  stillAllowed?: () => Promise<boolean>;
};

// Anything else is ignored: the stream starts from now and the client reconciles on open.
const EventId = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/)
  .transform(Number)
  .refine((n) => Number.isSafeInteger(n));

/** Last-Event-ID, else `?lastEventId=` (a re-created EventSource cannot set headers). */
export function lastEventIdOf(request: Request): number | undefined {
  for (const value of [
    request.headers.get("last-event-id"),
    new URL(request.url).searchParams.get("lastEventId"),
  ]) {
    const parsed = EventId.safeParse(value?.trim() ?? "");
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

function retryField(): string {
  return `retry: ${RETRY_MS + Math.floor(Math.random() * RETRY_JITTER_MS)}\n`;
}

/** Written in one piece so it leaves in one TCP segment. */
export function sseFrame(event: string, data: string, id?: number): string {
  const lines = data.includes("\n") ? data.split("\n").join("\ndata: ") : data;
  return `${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${lines}\n\n`;
}

// One timer for every stream, pinging one 100 ms slot of the cycle per tick, so a tick never
// stalls the loop writing to every stream at once.
const TICK_MS = 100;
const SLOTS = PING_INTERVAL_MS / TICK_MS;
const slots: Set<OpenStream>[] = Array.from({ length: SLOTS }, () => new Set());
let tick = 0;
let ticker: ReturnType<typeof setInterval> | undefined;

const SENT_IDS_KEPT = 256;
const open = new Set<OpenStream>();
const openByUser = new Map<string, Set<OpenStream>>();
const openBySession = new Map<string, Set<OpenStream>>();
class OpenStream {
  closed = false;
  /** The newest id sent: Last-Event-ID only grows, so an older event goes out without an id. */
  lastId = 0;
  /** Ids at or below it were sent by the connection this one resumes (its Last-Event-ID, or a reconcile). */
  floor = 0;
  /**
   * Ids sent on this stream, so one that arrives twice (replayed and live) goes once, while an older
   * one never sent (another instance's, heard after a newer one) still goes, without an id.
   */
  private readonly sent = new Set<number>();
  unsubscribe: () => void = () => {};
  readonly slot = tick;

  constructor(
    readonly userId: string,
    readonly sink: StreamSink,
    readonly until: number,
    readonly session: string | undefined,
    readonly stillAllowed: (() => Promise<boolean>) | undefined,
  ) {}

  send(text: string) {
    if (this.closed) return;
    let alive = false;
    try {
      alive = this.sink.write(text);
    } catch {}
    if (!alive) this.close();
  }

  frame(event: SystemEvent, id?: number): string {
    if (id !== undefined) {
      if (id <= this.floor || this.sent.has(id)) return "";
      this.sent.add(id);
      // Insertion order is roughly id order: the oldest goes first, and a duplicate comes soon.
      if (this.sent.size > SENT_IDS_KEPT) this.sent.delete(this.sent.values().next().value!);
      if (id <= this.lastId) id = undefined;
      else this.lastId = id;
    }
    eventDelivered();
    return sseFrame(event.type, JSON.stringify(event), id);
  }

  close(evicted = false) {
    if (this.closed) return;
    // Tells the tab not to reconnect, or two tabs past the cap would evict each other forever.
    if (evicted) this.send(sseFrame(EVICTED_EVENT, "too many open streams"));
    this.closed = true;
    this.unsubscribe();
    open.delete(this);
    slots[this.slot]!.delete(this);
    const mine = openByUser.get(this.userId);
    mine?.delete(this);
    if (mine?.size === 0) openByUser.delete(this.userId);
    if (this.session) {
      const same = openBySession.get(this.session);
      same?.delete(this);
      if (same?.size === 0) openBySession.delete(this.session);
    }
    if (open.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
    try {
      this.sink.end();
    } catch {}
  }
}

function onTick() {
  tick = (tick + 1) % SLOTS;
  const due = slots[tick]!;
  if (due.size === 0) return;
  const now = Date.now();
  const ping = sseFrame("ping", new Date(now).toISOString());
  for (const stream of due) {
    if (stream.until <= now) stream.close();
    else stream.send(ping);
  }
}

export function openUserStream(userId: string, sink: StreamSink, options: StreamOptions = {}): () => void {
  const until = options.until ? Date.parse(options.until) : Number.POSITIVE_INFINITY;
  const stream = new OpenStream(
    userId,
    sink,
    Number.isNaN(until) ? 0 : until,
    options.session,
    options.stillAllowed,
  );
  const mine = openByUser.get(userId) ?? new Set<OpenStream>();
  let excess = mine.size - (options.maxPerUser ?? MAX_STREAMS_PER_USER) + 1;
  for (const oldest of mine) {
    if (excess-- <= 0) break;
    oldest.close(true);
  }
  open.add(stream);
  slots[stream.slot]!.add(stream);
  openByUser.set(userId, mine.add(stream));
  if (options.session)
    openBySession.set(options.session, (openBySession.get(options.session) ?? new Set()).add(stream));
  ticker ??= setInterval(onTick, TICK_MS);
  ticker.unref?.();
  const bus = options.bus ?? systemBus();
  // Subscribed before the log is read, so no live event falls between the two.
  let waiting: { event: SystemEvent; id?: number }[] | null = [];
  stream.unsubscribe = bus.subscribe(SYSTEM_EVENT_CHANNEL, userId, (event: SystemEvent, id?: number) => {
    if (waiting) waiting.push({ event, id });
    else {
      const text = stream.frame(event, id);
      if (text) stream.send(text);
    }
  });
  // An opening frame so the browser fires `open` at once; `retry:` first, for a stream that drops.
  stream.send(retryField() + sseFrame("ping", new Date().toISOString()));
  const takeWaiting = () => {
    const live = waiting ?? [];
    waiting = null;
    return live;
  };
  if (stream.until <= Date.now()) stream.close();
  else if (options.lastEventId) void replay(stream, bus, options.lastEventId, takeWaiting);
  else void startAtNewest(stream, bus, takeWaiting);
  return () => stream.close();
}

async function startAtNewest(
  stream: OpenStream,
  bus: EventBus,
  takeWaiting: () => { event: SystemEvent; id?: number }[],
) {
  let newest: number | null = null;
  try {
    newest = await bus.newestId(stream.userId);
  } catch (error) {
    console.error(error);
  }
  let text = "";
  for (const { event, id } of takeWaiting()) text += stream.frame(event, id);
  if (newest && newest > stream.lastId) {
    // A ping carrying the id, so app/events/event-source.ts sees it too, not only the browser.
    text += sseFrame("ping", new Date().toISOString(), newest);
    stream.lastId = newest;
  }
  if (text) stream.send(text);
}

async function replay(
  stream: OpenStream,
  bus: EventBus,
  afterId: number,
  takeWaiting: () => { event: SystemEvent; id?: number }[],
) {
  let text = "";
  try {
    const missed = await bus.replay(stream.userId, afterId);
    if (missed.kind === "reconcile") {
      text += sseFrame(RECONCILE_EVENT, "missed events are no longer kept", missed.newest ?? undefined);
      stream.lastId = stream.floor = missed.newest ?? 0;
    } else {
      stream.lastId = stream.floor = afterId;
      for (const { event, id } of missed.events) text += stream.frame(event, id);
    }
  } catch (error) {
    console.error(error);
    text += sseFrame(RECONCILE_EVENT, "missed events could not be read");
  }
  for (const { event, id } of takeWaiting()) text += stream.frame(event, id);
  if (text) stream.send(text);
}

const encoder = new TextEncoder();

/** For React Router's route (dev server, tests); production answers on the socket (raw-stream.server.ts). */
export function userEventStream(signal: AbortSignal, userId: string, options: StreamOptions = {}): Response {
  let close = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      close = openUserStream(
        userId,
        {
          write(text) {
            controller.enqueue(encoder.encode(text));
            return true;
          },
          end() {
            signal.removeEventListener("abort", close);
            controller.close();
          },
        },
        options,
      );
    },
    // Node 20 often cancels the reader without ever firing the signal.
    cancel: () => close(),
  });
  signal.addEventListener("abort", close, { once: true });
  if (signal.aborted) close();
  return new Response(body, { headers: EVENT_STREAM_HEADERS });
}

export function openStreamCount(): number {
  return open.size;
}

/** Ends a user's streams when their sessions end, so events stop at once; valid sessions reconnect. */
export function closeStreamsOf(userId: string) {
  closeLocalStreamsOf(userId);
  void endStreamsElsewhere(userId);
}

function closeLocalStreamsOf(userId: string) {
  for (const stream of [...(openByUser.get(userId) ?? [])]) stream.close();
}
registerStreamEnder(closeLocalStreamsOf);

/** Ends one session's streams on every instance; the user's other sessions' streams stay. */
export function closeSessionStreams(session: string) {
  closeLocalSessionStreams(session);
  void endSessionStreamsElsewhere(session);
}

function closeLocalSessionStreams(session: string) {
  for (const stream of [...(openBySession.get(session) ?? [])]) stream.close();
}
registerSessionStreamEnder(closeLocalSessionStreams);

/**
 * Ends the streams whose stillAllowed now says no (a role's network rule changed, say): otherwise
 * an open stream would go on delivering from where its next request is refused. Returns how many.
 */
export async function recheckStreams(): Promise<number> {
  const asked = [...open].filter((stream) => stream.stillAllowed);
  // An answer that fails keeps its stream: the stream's next reconnect meets the gate anyway.
  const answers = await Promise.all(
    asked.map((stream) =>
      stream.stillAllowed!().catch((error) => {
        console.error(`[events] rechecking a stream failed: ${error}`);
        return true;
      }),
    ),
  );
  let ended = 0;
  asked.forEach((stream, i) => {
    if (answers[i] || stream.closed) return;
    stream.close();
    ended++;
  });
  return ended;
}

/** `retryMs`: the reconnection delay asked of each browser first (a draining server). */
export function closeAllStreams(retryMs?: number) {
  const hint = retryMs === undefined ? "" : `retry: ${Math.max(0, Math.round(retryMs))}\n\n`;
  for (const stream of [...open]) {
    if (hint) stream.send(hint);
    stream.close();
  }
}
