import { remember } from "@epic-web/remember";
import { setClusterLink } from "./cluster.server";
import type { Channel, SystemEvent } from "./event-types";

type Subscriber = (event: SystemEvent) => void;

/** Publish/subscribe for system events, addressed to one user: in-process here, across instances
 * through LISTEN/NOTIFY in postgres-bus.server.ts. */
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
 * until it does, events stay in this process, which is right for one instance on SQLite.
 */
export function setSystemBusFactory(factory: BusFactory | undefined) {
  holder.factory = factory;
}

export function systemBus(): EventBus {
  holder.bus ??= holder.factory?.() ?? createInProcessBus();
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
