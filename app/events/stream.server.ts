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

/**
 * The reconnection delay each stream asks of the browser (`retry:`), plus up to RETRY_JITTER_MS at
 * random, so the tabs of an instance that went away do not all come back in the same instant.
 */
const RETRY_MS = 2_000;
const RETRY_JITTER_MS = 1_000;

/**
 * Sent instead of the missed events when the window (app/events/event-log.server.ts) no longer
 * holds them all: the client reconciles through GET /api/tasks. Its id, when it has one, is the
 * user's newest, from which live events go on.
 */
export const RECONCILE_EVENT = "reconcile";

/**
 * Streams one user may hold on this instance. A new one past the cap closes that user's oldest
 * rather than being refused: a person with many tabs keeps a live newest tab (an evicted tab's
 * EventSource reconnects and reconciles through GET /api/tasks), while a script that opens
 * hundreds still holds no more than ten subscriptions.
 */
export const MAX_STREAMS_PER_USER = 10;

/** The last frame of a stream closed for a newer one; the client stops instead of reconnecting. */
export const EVICTED_EVENT = "evicted";

/**
 * The headers of every event stream: never compressed, cached or buffered by a proxy. The
 * connection ends with the stream: a balancer that kept it (nginx's upstream keepalive) would put
 * it back in its pool when a stopping instance ends its streams, then send a request on it just as
 * the instance closes it (a reset POST, which it cannot repeat: 502).
 */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "close",
  "X-Accel-Buffering": "no",
};

/**
 * Where one stream's frames go: a node response (raw-stream.server.ts) or a web ReadableStream
 * (userEventStream below). `write` answers false once the client is gone.
 */
export interface StreamSink {
  write(text: string): boolean;
  end(): void;
}

/**
 * `until`: the session's expiry; the stream ends then, and the browser reconnects (or gets 401).
 * `session`: the handle of the session (or API token) the stream was opened with (`sessionHandle`,
 * never the id: it travels between instances), so signing out ends that session's streams only:
 * while a super admin views as someone, those carry the viewed person's events, and the viewed
 * person's own streams must stay.
 */
export type StreamOptions = {
  bus?: EventBus;
  maxPerUser?: number;
  until?: string;
  session?: string;
  /** The id of the last event the client saw (lastEventIdOf): what came after it is sent first. */
  lastEventId?: number;
};

// Digits only, no sign, no leading zero, within what a JS number holds exactly: anything else is
// ignored (the stream starts from now, and the client reconciles on open as always).
const EventId = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/)
  .transform(Number)
  .refine((n) => Number.isSafeInteger(n));

/**
 * The id a reconnecting client resumes from: the Last-Event-ID header (the browser's own
 * reconnect), else `?lastEventId=` (a re-created EventSource, which cannot set headers).
 */
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

/** One server-sent event, written in one piece so it leaves in one TCP segment. */
export function sseFrame(event: string, data: string, id?: number): string {
  const lines = data.includes("\n") ? data.split("\n").join("\ndata: ") : data;
  return `${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${lines}\n\n`;
}

// Pings come from one timer for every stream, not one per stream. It ticks every 100 ms and pings
// the streams opened in that slot of the 15 s cycle, so at 10,000 streams a tick writes ~70 small
// frames instead of one tick stalling the loop with all of them.
const TICK_MS = 100;
const SLOTS = PING_INTERVAL_MS / TICK_MS;
const slots: Set<OpenStream>[] = Array.from({ length: SLOTS }, () => new Set());
let tick = 0;
let ticker: ReturnType<typeof setInterval> | undefined;

const open = new Set<OpenStream>();
const openByUser = new Map<string, Set<OpenStream>>();
const openBySession = new Map<string, Set<OpenStream>>();
class OpenStream {
  closed = false;
  /** The newest event id sent: ids on a stream only grow, so a replayed event is never sent twice. */
  lastId = 0;
  /**
   * A stream opened without Last-Event-ID starts at the user's newest id (sent as a bare `id:`
   * line, so a reconnect replays from there). An older event that reaches this instance only
   * afterwards (another instance's NOTIFY still on its way) was not sent here: it goes out
   * without an id, which would otherwise move the browser's Last-Event-ID back.
   */
  startId = 0;
  unsubscribe: () => void = () => {};
  readonly slot = tick;

  constructor(
    readonly userId: string,
    readonly sink: StreamSink,
    /** Epoch ms; the ping pass ends the stream once it is past. */
    readonly until: number,
    readonly session: string | undefined,
  ) {}

  send(text: string) {
    if (this.closed) return;
    let alive = false;
    try {
      alive = this.sink.write(text);
    } catch {}
    // A write that fails means the client is gone, whatever did (or did not) tell us so.
    if (!alive) this.close();
  }

  /** One event frame, unless its id was sent already (replay and live overlap). */
  frame(event: SystemEvent, id?: number): string {
    if (id !== undefined) {
      if (id <= this.lastId && id > this.startId) return "";
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
  // Deleting the entry being visited (a stream that closes) is safe while iterating a Set.
  for (const stream of due) {
    if (stream.until <= now) stream.close();
    else stream.send(ping);
  }
}

/**
 * Registers one stream of `userId`'s system events: subscribes it to the bus, holds the per-user
 * cap, sends the opening ping, and pings it every 15 s until it closes. Returns its close().
 */
export function openUserStream(userId: string, sink: StreamSink, options: StreamOptions = {}): () => void {
  const until = options.until ? Date.parse(options.until) : Number.POSITIVE_INFINITY;
  const stream = new OpenStream(userId, sink, Number.isNaN(until) ? 0 : until, options.session);
  const mine = openByUser.get(userId) ?? new Set<OpenStream>();
  // A Set keeps insertion order, so the first entries are the user's oldest streams.
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
  // Subscribed before the log is read, live events meanwhile wait here: none falls between the two.
  let waiting: { event: SystemEvent; id?: number }[] | null = [];
  stream.unsubscribe = bus.subscribe(SYSTEM_EVENT_CHANNEL, userId, (event: SystemEvent, id?: number) => {
    if (waiting) waiting.push({ event, id });
    else {
      const text = stream.frame(event, id);
      if (text) stream.send(text);
    }
  });
  // An opening frame, so the browser fires `open` (and the client reconciles) at once; `retry:`
  // first, so even a stream that drops right away tells the browser how long to wait.
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

/**
 * A stream without Last-Event-ID: what happened before it opened is the client's reconcile on
 * `open`; from here on, the user's newest id makes a reconnect replay what the client missed.
 */
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
  // Events delivered while the id was read were sent to nobody yet: they go out first.
  for (const { event, id } of takeWaiting()) text += stream.frame(event, id);
  if (newest && newest > stream.lastId) {
    // A ping carrying the id, so the page's own code sees it too (app/events/event-source.ts
    // passes it on when it has to open a new EventSource), not only the browser's reconnect.
    text += sseFrame("ping", new Date().toISOString(), newest);
    stream.lastId = stream.startId = newest;
  }
  if (text) stream.send(text);
}

/**
 * Sends what the client missed after `afterId`, in order and in one write, then the live events
 * that arrived meanwhile, skipping ids already sent; or a reconcile frame when the window lost some.
 */
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
      stream.lastId = missed.newest ?? 0;
    } else {
      stream.lastId = afterId;
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

/**
 * The user's system events as a web Response, for React Router's route (the dev server, tests).
 * The production server answers GET /api/events on the socket itself (raw-stream.server.ts).
 */
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
    // The reader went away (the client, on Node 20, often without the signal ever firing).
    cancel: () => close(),
  });
  signal.addEventListener("abort", close, { once: true });
  if (signal.aborted) close();
  return new Response(body, { headers: EVENT_STREAM_HEADERS });
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
  for (const stream of [...(openByUser.get(userId) ?? [])]) stream.close();
}
registerStreamEnder(closeLocalStreamsOf);

/**
 * Ends the streams one session opened (by its handle: sign-out, the start or end of a "View as"),
 * on every instance; the same user's streams from other sessions, and those of a person viewed
 * as, stay.
 */
export function closeSessionStreams(session: string) {
  closeLocalSessionStreams(session);
  void endSessionStreamsElsewhere(session);
}

function closeLocalSessionStreams(session: string) {
  for (const stream of [...(openBySession.get(session) ?? [])]) stream.close();
}
registerSessionStreamEnder(closeLocalSessionStreams);

/**
 * Ends every stream, so a stopping server is not held open by idle connections. `retryMs`: the
 * reconnection delay to ask of each browser first (a draining server: come back elsewhere, soon).
 */
export function closeAllStreams(retryMs?: number) {
  const hint = retryMs === undefined ? "" : `retry: ${Math.max(0, Math.round(retryMs))}\n\n`;
  for (const stream of [...open]) {
    if (hint) stream.send(hint);
    stream.close();
  }
}
