import type { Channel, SystemEvent } from "./event-types";

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
const holder = globalThis as typeof globalThis & { __systemEventBus?: EventBus };

export function systemBus(): EventBus {
  holder.__systemEventBus ??= createInProcessBus();
  return holder.__systemEventBus;
}
