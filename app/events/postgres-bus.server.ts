import { randomUUID } from "node:crypto";
import pg from "pg";
import { postgresConfig } from "../../db/connection";
import type { EventBus, LocalBus } from "./bus.server";
import {
  type CacheName,
  type ClusterLink,
  clearLocal,
  endSessionStreamsLocal,
  endStreamsLocal,
} from "./cluster.server";
import type { EventLog, LoggedEvent } from "./event-log.server";
import type { Channel, SystemEvent } from "./event-types";

// NOTIFY refuses payloads of 8000 bytes or more; room is left for the envelope.
export const MAX_PAYLOAD_BYTES = 7_000;

// `s` keeps two equal messages apart: PostgreSQL folds identical notifications in one transaction.
type Message =
  | { o: string; s: number; k: "event"; c: Channel; e: SystemEvent; i?: number }
  | { o: string; s: number; k: "invalidate"; n: CacheName }
  | { o: string; s: number; k: "end-streams"; u: string }
  | { o: string; s: number; k: "end-session-streams"; i: string };
type Delivery = { c: Channel; e: SystemEvent; i?: number };
type Outgoing = Message extends infer M ? (M extends Message ? Omit<M, "o" | "s"> : never) : never;

/** After a failover the bus is back within a second of the database; one attempt a second costs nothing. */
const MAX_RETRY_MS = 1_000;

const BATCH = 500;

/** How long this instance's own event waits for its echo before it goes out without it. */
const ECHO_WAIT_MS = 2_000;

export type PostgresBusOptions = {
  url: string;
  local: LocalBus;
  log: EventLog;
  notify: (channel: string, payloads: string[]) => Promise<unknown>;
  onError?: (error: unknown) => void;
  /** Whatever was sent while the listener was down is lost. */
  onResync?: () => void;
};

export type PostgresBus = EventBus & ClusterLink & { ready: Promise<void>; close(): Promise<void> };

/** Per schema, so test schemas (and separate deployments) never cross-talk. */
export function notifyChannel(url: string): string {
  const schema = new URL(url).searchParams.get("schema");
  return schema ? `dashboard_events_${schema}` : "dashboard_events";
}

/** Broadcasts' text is cut: the full notice is in the notification row the bell loads. */
export function encode(message: Message): string {
  let text = JSON.stringify(message);
  if (Buffer.byteLength(text) < MAX_PAYLOAD_BYTES) return text;
  if (message.k === "event" && message.e.type === "broadcast") {
    const e = message.e;
    const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
    text = JSON.stringify({
      ...message,
      e: { ...e, title: cut(e.title, 200), message: cut(e.message, 1_000) },
    });
    if (Buffer.byteLength(text) < MAX_PAYLOAD_BYTES) return text;
  }
  throw new Error(`event too large for NOTIFY (${Buffer.byteLength(text)} bytes)`);
}

/** An instance knows its own echo by an origin id: it gives out its own events then, and ignores its other messages. */
export function createPostgresBus(options: PostgresBusOptions): PostgresBus {
  const onError = options.onError ?? console.error;
  const local = options.local;
  const origin = randomUUID();
  const channel = notifyChannel(options.url);
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 500;
  let timer: ReturnType<typeof setTimeout> | undefined;

  let sequence = 0;
  let queued: string[] = [];
  let flushing: Promise<void> | undefined;

  async function flush() {
    await new Promise((r) => setImmediate(r));
    const batch = queued;
    queued = [];
    flushing = undefined;
    for (let i = 0; i < batch.length; i += BATCH) {
      try {
        await options.notify(channel, batch.slice(i, i + BATCH));
      } catch (error) {
        onError(error);
      }
    }
  }

  // Ids reach this instance's subscribers in id order. Ids commit in order (event-log.server.ts
  // holds a lock from an id's assignment to its commit), and every listener hears the NOTIFYs in
  // commit order, its own among them: so this instance's own events go out when their echo is
  // heard, not when their commit returns, which another instance's lower id, heard later, could
  // follow (a stream skips an id below one it sent: a completion was lost so in a cluster run).
  // An echo that does not come (the listener is down) is not waited for past ECHO_WAIT_MS.
  const awaitingEcho = new Map<number, { item: Delivery; given: () => void }>();
  /** Heard before its commit returned: given out already. */
  const heardEarly = new Set<number>();
  /** Given out without its echo, which may still come. */
  const givenUnheard = new Set<number>();
  let echoTimer: ReturnType<typeof setTimeout> | undefined;

  /** Resolves once this instance's subscribers have them, as publishing did before it waited for echoes. */
  function committed(mine: Delivery[]): Promise<unknown> {
    const waits: Promise<void>[] = [];
    for (const item of mine) {
      if (item.i === undefined) local.deliver(item.c, item.e);
      else if (!client && !heardEarly.has(item.i)) {
        // Without a listener (starting, or reconnecting) there is no order to keep; an echo may
        // still come if LISTEN took effect just before, and is then ignored.
        givenUnheard.add(item.i);
        local.deliver(item.c, item.e, item.i);
      } else if (!heardEarly.delete(item.i)) {
        const id = item.i;
        waits.push(new Promise((given) => awaitingEcho.set(id, { item, given })));
      }
    }
    if (awaitingEcho.size > 0 && !echoTimer) {
      echoTimer = setTimeout(giveUnheard, ECHO_WAIT_MS);
      echoTimer.unref?.();
    }
    return Promise.all(waits);
  }

  function giveUnheard() {
    echoTimer = undefined;
    const due = [...awaitingEcho.values()].sort((x, y) => x.item.i! - y.item.i!);
    awaitingEcho.clear();
    for (const { item, given } of due) {
      if (!closed) givenUnheard.add(item.i!);
      local.deliver(item.c, item.e, item.i);
      given();
    }
  }

  function heard(item: Delivery, own: boolean) {
    if (own && item.i === undefined) return; // given out at once when it was sent
    if (own && item.i !== undefined) {
      if (givenUnheard.delete(item.i)) return;
      const waiting = awaitingEcho.get(item.i);
      if (!waiting) heardEarly.add(item.i);
      else {
        awaitingEcho.delete(item.i);
        local.deliver(item.c, item.e, item.i);
        waiting.given();
        return;
      }
    }
    local.deliver(item.c, item.e, item.i);
  }

  function payloadsOf(ch: Channel, logged: readonly LoggedEvent[]): string[] {
    const payloads: string[] = [];
    for (const { id, event } of logged) {
      try {
        payloads.push(encode({ o: origin, s: ++sequence, k: "event", c: ch, e: event, i: id }));
      } catch (error) {
        onError(error);
      }
    }
    return payloads;
  }

  // Never rejects: the reconnect/reconcile path covers what is lost.
  async function publishMany(ch: Channel, events: readonly SystemEvent[]): Promise<void> {
    if (events.length === 0) return;
    let mine: Delivery[];
    try {
      const logged = await options.log.append(events, (rows) => ({
        channel,
        payloads: payloadsOf(ch, rows),
      }));
      mine = logged.map(({ id, event }) => ({ c: ch, e: event, i: id }));
    } catch (error) {
      onError(error);
      mine = events.map((e) => ({ c: ch, e }));
      for (const e of events) void send({ k: "event", c: ch, e });
    }
    await committed(mine);
  }

  // Never rejects: the reconnect/reconcile path covers a lost message.
  function send(message: Outgoing): Promise<void> {
    try {
      queued.push(encode({ ...message, o: origin, s: ++sequence } as Message));
    } catch (error) {
      onError(error);
      return Promise.resolve();
    }
    flushing ??= flush();
    return flushing;
  }

  function receive(payload: string | undefined) {
    if (!payload) return;
    let message: Message;
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (message.k === "event") heard({ c: message.c, e: message.e, i: message.i }, message.o === origin);
    else if (message.o === origin) return;
    else if (message.k === "invalidate") clearLocal(message.n);
    else if (message.k === "end-streams") endStreamsLocal(message.u);
    else if (message.k === "end-session-streams") endSessionStreamsLocal(message.i);
  }

  async function connect(resync: boolean): Promise<void> {
    // Keepalive matters most on a connection that only listens and would never notice its server gone.
    const c = new pg.Client(postgresConfig(options.url));
    c.on("notification", (n) => {
      if (n.channel === channel) receive(n.payload);
    });
    c.on("error", (error) => {
      onError(error);
      reconnectLater(c);
    });
    c.on("end", () => reconnectLater(c));
    try {
      await c.connect();
      await c.query(`LISTEN "${channel}"`);
    } catch (error) {
      // Not yet the bus's client, so nothing else would end it (a standby refuses LISTEN on every try).
      c.end().catch(() => {});
      throw error;
    }
    client = c;
    retryMs = 500;
    if (resync) {
      // What was sent while the listener was down is never heard.
      heardEarly.clear();
      givenUnheard.clear();
      clearLocal();
      options.onResync?.();
    }
  }

  function reconnectLater(dead: pg.Client) {
    if (closed || client !== dead || timer) return;
    client = undefined;
    dead.end().catch(() => {});
    timer = setTimeout(() => {
      timer = undefined;
      connect(true).catch((error) => {
        onError(error);
        client = dead;
        reconnectLater(dead);
      });
    }, retryMs);
    timer.unref?.();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }

  const ready = connect(false);
  ready.catch(() => {}); // awaited by the lifecycle; a test using only the local side need not.

  return {
    ready,
    async stage(trx, ch, events) {
      const logged = await options.log.appendIn(trx, events, (rows) => ({
        channel,
        payloads: payloadsOf(ch, rows),
      }));
      return {
        afterCommit: async () =>
          void (await committed(logged.map(({ id, event }) => ({ c: ch, e: event, i: id })))),
      };
    },
    publish: (ch, event) => publishMany(ch, [event]),
    publishMany,
    replay: (userId, afterId) => options.log.replay(userId, afterId),
    newestId: (userId) => options.log.newest(userId),
    subscribe: local.subscribe,
    subscriberCount: local.subscriberCount,
    announce(cache) {
      return send({ k: "invalidate", n: cache });
    },
    endStreams(userId) {
      return send({ k: "end-streams", u: userId });
    },
    endSessionStreams(session) {
      return send({ k: "end-session-streams", i: session });
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(echoTimer);
      giveUnheard();
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
