import { sql } from "kysely";
import { isPostgresUrl } from "../../db/connection";
import { db } from "../db.server";
import { env } from "../env.server";
import { setClusterLink } from "./cluster.server";
import type { Channel, SystemEvent } from "./event-types";
import { createPostgresBus, type PostgresBus } from "./postgres-bus.server";

export type Subscriber = (event: SystemEvent) => void;

/** Publish/subscribe for system events, addressed to one user. A Redis or Postgres LISTEN
 * implementation can replace the in-process one when several instances run. */
export interface EventBus {
  publish(channel: Channel, event: SystemEvent): void;
  subscribe(channel: Channel, userId: string, subscriber: Subscriber): () => void;
  subscriberCount(channel?: Channel): number;
}

/** Subscribers are kept per user, so one event costs O(that user's subscribers), not O(all). */
export function createInProcessBus(onError: (error: unknown) => void = console.error): EventBus {
  const channels = new Map<Channel, Map<string, Set<Subscriber>>>();

  return {
    publish(channel, event) {
      const subscribers = channels.get(channel)?.get(event.userId);
      if (!subscribers) return;
      // A copy: a subscriber may unsubscribe itself (or another) while we iterate.
      for (const subscriber of [...subscribers]) {
        try {
          subscriber(event);
        } catch (error) {
          onError(error);
        }
      }
    },
    subscribe(channel, userId, subscriber) {
      const users = channels.get(channel) ?? new Map<string, Set<Subscriber>>();
      channels.set(channel, users);
      const set = users.get(userId) ?? new Set<Subscriber>();
      users.set(userId, set);
      set.add(subscriber);
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        set.delete(subscriber);
        if (set.size === 0 && users.get(userId) === set) users.delete(userId);
      };
    },
    subscriberCount(channel) {
      let count = 0;
      for (const [name, users] of channels) {
        if (channel && name !== channel) continue;
        for (const set of users.values()) count += set.size;
      }
      return count;
    },
  };
}

// One bus per process, also across the dev server's module reloads.
const holder = globalThis as typeof globalThis & {
  __systemEventBus?: EventBus;
  __postgresBus?: PostgresBus;
  __busResync?: Set<() => void>;
};
holder.__busResync ??= new Set();
const resyncHooks = holder.__busResync;

/** In-process on SQLite (one instance); across instances through LISTEN/NOTIFY on PostgreSQL. */
export function systemBus(): EventBus {
  if (holder.__systemEventBus) return holder.__systemEventBus;
  const local = createInProcessBus();
  const url = env().DATABASE_URL;
  if (!isPostgresUrl(url)) {
    holder.__systemEventBus = local;
    return local;
  }
  const bus = createPostgresBus({
    url,
    local,
    notify: (channel, payloads) =>
      sql`select pg_notify(${channel}, p) from unnest(${payloads}::text[]) with ordinality as t(p, i) order by i`.execute(
        db(),
      ),
    onResync: () => {
      for (const hook of resyncHooks) hook();
    },
  });
  holder.__postgresBus = bus;
  setClusterLink(bus);
  holder.__systemEventBus = bus;
  return bus;
}

/** Resolves once this instance listens for the others (at once on SQLite). */
export async function startSystemBus() {
  systemBus();
  await holder.__postgresBus?.ready;
}

export async function stopSystemBus() {
  const bus = holder.__postgresBus;
  holder.__postgresBus = undefined;
  holder.__systemEventBus = undefined;
  setClusterLink(undefined);
  await bus?.close();
}

/** Runs after the cross-instance listener reconnects, e.g. to make SSE clients reconcile. */
export function onBusResync(hook: () => void) {
  resyncHooks.add(hook);
}
