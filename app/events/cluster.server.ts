// In-process caches that several instances must drop together. Each cache registers how to clear
// itself; a local change clears it here and announces it over the cluster link (PostgreSQL
// LISTEN/NOTIFY when configured), whose receivers clear their own copy without re-announcing.
import { remember } from "@epic-web/remember";

export type CacheName = "roles" | "menu" | "settings" | "sessions";

export type ClusterLink = {
  announce(cache: CacheName): Promise<void>;
  /** Asks the other instances to end one user's event streams (their sessions ended). */
  endStreams(userId: string): Promise<void>;
  /** Asks the other instances to end the event streams one session opened (by its handle, never its id). */
  endSessionStreams(session: string): Promise<void>;
};

// One registry per process, shared by every instance of this module (the dev server's reloads,
// the tests' second instance: docs/decisions/002-lean-server.md).
const holder = remember("cluster", () => ({
  link: undefined as ClusterLink | undefined,
  clearers: new Map<CacheName, Set<() => void>>(),
  streamEnders: new Set<(userId: string) => void>(),
  sessionStreamEnders: new Set<(session: string) => void>(),
}));
const { clearers, streamEnders, sessionStreamEnders } = holder;

export function registerCache(name: CacheName, clear: () => void) {
  const set = clearers.get(name) ?? new Set();
  set.add(clear);
  clearers.set(name, set);
}

/**
 * A change made here: clear this instance's copy and tell the others. Awaiting it means the
 * message is sent before the response, so the user's next request on any instance sees the change.
 */
export async function invalidateEverywhere(name: CacheName): Promise<void> {
  clearLocal(name);
  await holder.link?.announce(name);
}

/** Another instance changed it (or we may have missed messages): clear only our copy. */
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

/** The SSE module registers how it ends one user's streams on this instance. */
export function registerStreamEnder(end: (userId: string) => void) {
  streamEnders.add(end);
}

/** Another instance ended the user's sessions: end their streams here too. */
export function endStreamsLocal(userId: string) {
  for (const end of streamEnders) end(userId);
}

/** Ends the user's streams on the other instances (the caller ends its own). */
export function endStreamsElsewhere(userId: string): Promise<void> {
  return holder.link?.endStreams(userId) ?? Promise.resolve();
}

/** The SSE module registers how it ends one session's streams on this instance. */
export function registerSessionStreamEnder(end: (session: string) => void) {
  sessionStreamEnders.add(end);
}

/** Another instance ended a session: end the streams it opened here too. */
export function endSessionStreamsLocal(session: string) {
  for (const end of sessionStreamEnders) end(session);
}

/** Ends one session's streams on the other instances (the caller ends its own). */
export function endSessionStreamsElsewhere(session: string): Promise<void> {
  return holder.link?.endSessionStreams(session) ?? Promise.resolve();
}
