import { remember } from "@epic-web/remember";
import type { Executor } from "../db.server";
import { setClusterLink } from "./cluster.server";
import { createDbEventLog, createMemoryEventLog, type EventLog, type Replay } from "./event-log.server";
import type { Channel, SystemEvent } from "./event-types";

/** `id` is missing when the log could not be written. */
type Subscriber = (event: SystemEvent, id?: number) => void;

/**
 * Publishing writes the event log first, so every event reaches subscribers with its global id, in
 * id order; it never rejects: an event the log refused is still delivered live, without an id.
 */
export interface EventBus {
  publish(channel: Channel, event: SystemEvent): Promise<void>;
  publishMany(channel: Channel, events: readonly SystemEvent[]): Promise<void>;
  subscribe(channel: Channel, userId: string, subscriber: Subscriber): () => void;
  replay(userId: string, afterId: number): Promise<Replay>;
  newestId(userId: string): Promise<number | null>;
  subscriberCount(channel?: Channel): number;
  /**
   * Logs the events in the caller's transaction (EventLog.appendIn), so they exist exactly when the
   * change they tell of does; `afterCommit` gives them to this instance's subscribers. Throws as
   * the transaction's own statements do: the change rolls back with them.
   */
  stage(
    trx: Executor,
    channel: Channel,
    events: readonly SystemEvent[],
  ): Promise<{ afterCommit(): Promise<void> }>;
}

/** A cross-instance bus hands it what it receives, without logging it again. */
export type LocalBus = EventBus & { deliver(channel: Channel, event: SystemEvent, id?: number): void };

/** Kept per user, so one event costs O(that user's subscribers), not O(all). */
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
    async stage(trx, channel, events) {
      const logged = await log.appendIn(trx, events);
      return {
        async afterCommit() {
          for (const { id, event } of logged) deliver(channel, event, id);
        },
      };
    },
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

// One bus per process (decision 002); the SSE bench's probe reads it by this name too.
const holder = remember("systemEventBus", () => ({
  bus: undefined as RunningBus | undefined,
  factory: undefined as BusFactory | undefined,
  resyncHooks: new Set<() => void>(),
}));
const resyncHooks = holder.resyncHooks;

type RunningBus = EventBus & { ready?: Promise<void>; close?(): Promise<void> };
export type BusFactory = () => RunningBus;

/** Until the composition root says otherwise, events stay in this process, right for one instance on SQLite. */
export function setSystemBusFactory(factory: BusFactory | undefined) {
  holder.factory = factory;
}

export function systemBus(): EventBus {
  holder.bus ??= holder.factory?.() ?? createInProcessBus(console.error, createDbEventLog());
  return holder.bus;
}

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

export function onBusResync(hook: () => void) {
  resyncHooks.add(hook);
}

export function busResynced() {
  for (const hook of resyncHooks) hook();
}
