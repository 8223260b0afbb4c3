// In-process caches that several instances must drop together; receivers clear their own copy without re-announcing.
import { remember } from "@epic-web/remember";

export type CacheName = "roles" | "menu" | "settings" | "sessions";

export type ClusterLink = {
  announce(cache: CacheName): Promise<void>;
  /** Each cache's generation as the shared database holds it; a message alone can arrive late or never. */
  generations?(): Promise<ReadonlyMap<CacheName, string>>;
  endStreams(userId: string): Promise<void>;
  /** By the session's handle, never its id. */
  endSessionStreams(session: string): Promise<void>;
};

// One registry per process (decision 002).
const holder = remember("cluster", () => ({
  link: undefined as ClusterLink | undefined,
  clearers: new Map<CacheName, Set<() => void>>(),
  streamEnders: new Set<(userId: string) => void>(),
  sessionStreamEnders: new Set<(session: string) => void>(),
  seen: new Map<CacheName, string>(),
}));
const { clearers, streamEnders, sessionStreamEnders } = holder;

export function registerCache(name: CacheName, clear: () => void) {
  const set = clearers.get(name) ?? new Set();
  set.add(clear);
  clearers.set(name, set);
}

/** Awaited, the new generation is stored before the response, so the user's next request on any instance sees the change (catchUp); the message only makes it sooner. */
export async function invalidateEverywhere(name: CacheName): Promise<void> {
  clearLocal(name);
  await holder.link?.announce(name);
}

/**
 * Before a request trusts this instance's caches: drops each one another instance has cleared since
 * (a generation first met counts, since what was held before it is of unknown age).
 */
export async function catchUp(): Promise<void> {
  const read = holder.link?.generations;
  if (!read) return;
  for (const [name, generation] of await read()) {
    if (holder.seen.get(name) === generation) continue;
    clearLocal(name);
    holder.seen.set(name, generation);
  }
}

export function clearLocal(name?: CacheName) {
  for (const [key, set] of clearers) {
    if (name && key !== name) continue;
    for (const clear of set) clear();
  }
}

export function setClusterLink(link: ClusterLink | undefined) {
  holder.link = link;
}

export function clusterLink(): ClusterLink | undefined {
  return holder.link;
}

export function registerStreamEnder(end: (userId: string) => void) {
  streamEnders.add(end);
}

export function endStreamsLocal(userId: string) {
  for (const end of streamEnders) end(userId);
}

export function endStreamsElsewhere(userId: string): Promise<void> {
  return holder.link?.endStreams(userId) ?? Promise.resolve();
}

export function registerSessionStreamEnder(end: (session: string) => void) {
  sessionStreamEnders.add(end);
}

export function endSessionStreamsLocal(session: string) {
  for (const end of sessionStreamEnders) end(session);
}

export function endSessionStreamsElsewhere(session: string): Promise<void> {
  return holder.link?.endSessionStreams(session) ?? Promise.resolve();
}
