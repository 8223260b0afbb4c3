import { remember } from "@epic-web/remember";
import { setClusterLink } from "./cluster.server";
import { createDbEventLog, createMemoryEventLog, type EventLog, type Replay } from "./event-log.server";
import type { Channel, SystemEvent } from "./event-types";

/** Gets each event with its id in the event log (none when the log could not be written). */
type Subscriber = (event: SystemEvent, id?: number) => void;

/**
 * Publish/subscribe for system events, addressed to one user: in-process here, across instances
 * through LISTEN/NOTIFY in postgres-bus.server.ts. Publishing writes the event log first
 * (event-log.server.ts), so every event reaches subscribers with its global id, in id order.
 * It never rejects: an event the log refused is still delivered live, without an id.
 */
export interface EventBus {
  publish(channel: Channel, event: SystemEvent): Promise<void>;
  /** Many events (a broadcast to every user) in a few statements, not one round trip each. */
  publishMany(channel: Channel, events: readonly SystemEvent[]): Promise<void>;
  subscribe(channel: Channel, userId: string, subscriber: Subscriber): () => void;
  /** What a client that last saw `afterId` missed (event-log.server.ts). */
  replay(userId: string, afterId: number): Promise<Replay>;
  /** The user's newest event id (event-log.server.ts). */
  newestId(userId: string): Promise<number | null>;
  subscriberCount(channel?: Channel): number;
}

/** The in-process bus, which a cross-instance bus hands what it receives to (without logging it again). */
export type LocalBus = EventBus & { deliver(channel: Channel, event: SystemEvent, id?: number): void };

/**
 * Subscribers are kept per user, so one event costs O(that user's subscribers), not O(all).
 * `log`: where ids come from; in memory unless given (the app's bus writes the database's).
 */
export function createInProcessBus(
  onError: (error: unknown) => void = console.error,
  log: EventLog = createMemoryEventLog(),
): LocalBus {
  const channels = new Map<Channel, Map<string, Set<Subscriber>>>();

  function deliver(channel: Channel, event: SystemEvent, id?: number) {
    const subscribers = channels.get(channel)?.get(event.userId);
    if (!subscribers) return;
    // A copy: a subscriber may unsubscribe itself (or another) while we iterate.
    for (const subscriber of [...subscribers]) {
      try {
        subscriber(event, id);
      } catch (error) {
        onError(error);
      }
    }
  }

  async function publishMany(channel: Channel, events: readonly SystemEvent[]) {
    let logged: { id?: number; event: SystemEvent }[];
    try {
      logged = await log.append(events);
    } catch (error) {
      onError(error);
      logged = events.map((event) => ({ event }));
    }
    for (const { id, event } of logged) deliver(channel, event, id);
  }

  return {
    deliver,
    publish: (channel, event) => publishMany(channel, [event]),
    publishMany,
    replay: (userId, afterId) => log.replay(userId, afterId),
    newestId: (userId) => log.newest(userId),
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

// One bus per process, also across the dev server's module reloads and the tests' second module
// instance (docs/decisions/002-lean-server.md); the SSE bench's probe reads it by this name too.
const holder = remember("systemEventBus", () => ({
  bus: undefined as RunningBus | undefined,
  factory: undefined as BusFactory | undefined,
  resyncHooks: new Set<() => void>(),
}));
const resyncHooks = holder.resyncHooks;

/** A bus that connects somewhere (LISTEN/NOTIFY): ready once it listens, closed at shutdown. */
type RunningBus = EventBus & { ready?: Promise<void>; close?(): Promise<void> };
export type BusFactory = () => RunningBus;

/**
 * The composition root (app/server/composition.server.ts) says which bus this deployment uses;
 * until it does, events stay in this process (logged in the database), which is right for one
 * instance on SQLite.
 */
export function setSystemBusFactory(factory: BusFactory | undefined) {
  holder.factory = factory;
}

export function systemBus(): EventBus {
  holder.bus ??= holder.factory?.() ?? createInProcessBus(console.error, createDbEventLog());
  return holder.bus;
}

/** Resolves once this instance listens for the others (at once when the bus is in-process). */
export async function startSystemBus() {
  systemBus();
  await holder.bus?.ready;
}

export async function stopSystemBus() {
  const bus = holder.bus;
  holder.bus = undefined;
  setClusterLink(undefined);
  await bus?.close?.();
}

/** Runs after the cross-instance listener reconnects, e.g. to make SSE clients reconcile. */
export function onBusResync(hook: () => void) {
  resyncHooks.add(hook);
}

/** What a cross-instance bus calls after its listener came back from a drop. */
export function busResynced() {
  for (const hook of resyncHooks) hook();
}
