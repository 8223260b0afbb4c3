import { invalidateEverywhere, registerCache } from "../events/cluster.server";

// Signed-in requests used to read the session, its user and the user's roles from the database on
// every request (decision 041). Here they are read once per session and kept in process until a
// change that could alter the answer clears them on every instance (invalidateSessions(), carried
// by the event bus like the role and menu caches). Only sessions that exist are kept: a new
// session needs no clearing, and a session past its expiry is read again (another instance may
// have renewed it), never served from here.

export type CachedSession = {
  userId: string;
  name: string;
  email: string;
  mustChangePassword: boolean;
  /** The language of the person at the keyboard (the super admin's own while viewing as someone). */
  locale?: string | null;
  /** A role requires two-factor and the account has none yet (two-factor.server.ts). */
  twoFactorEnrolmentDue?: boolean;
  roleIds: string[];
  /** ISO time; mutated in place when this instance renews the session. */
  expiresAt: string;
  /** Set while a super admin views as this user ("View as"); the entry holds only until `until`. */
  impersonator?: { id: string; email: string; until: string } | null;
};

/** Whether a cached answer still holds: before the session's end and any "View as" end. */
function current(session: CachedSession): boolean {
  const t = Date.now();
  return (
    Date.parse(session.expiresAt) > t && (!session.impersonator || Date.parse(session.impersonator.until) > t)
  );
}

/** Enough for every signed-in person of a large company; past it the oldest entry goes. */
const MAX_ENTRIES = 20_000;

// Replaced (not cleared) on invalidation: a read still in flight then lands in the old map, so an
// answer read before a change can not be kept after it.
let sessions = new Map<string, Promise<CachedSession | null>>();
const verifiedCookies = new Map<string, string | null>();

registerCache("sessions", () => {
  sessions = new Map();
});

function remember<K, V>(map: Map<K, V>, key: K, value: V) {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/**
 * The session `id` from the cache or from `load`. An entry past its expiry (or its "View as" end)
 * is dropped and read again: the database is the judge of whether it was renewed elsewhere or has ended.
 */
export async function cachedSession(
  id: string,
  load: (id: string) => Promise<CachedSession | null>,
): Promise<CachedSession | null> {
  const map = sessions;
  const hit = map.get(id);
  if (hit) {
    const session = await hit;
    if (session && current(session)) return session;
    if (map.get(id) === hit) map.delete(id);
  }
  const loading = load(id);
  remember(map, id, loading);
  const forget = () => {
    if (map.get(id) === loading) map.delete(id);
  };
  loading.then((session) => session ?? forget(), forget);
  return loading;
}

/**
 * The session id a `__session` cookie value carries, or null for a forged one. Verifying the
 * signature is an HMAC through WebCrypto on every request otherwise; the answer for a given value
 * never changes while the secrets stay the same (they are read at start).
 */
export async function verifiedSessionId(
  raw: string,
  verify: (raw: string) => Promise<string | null>,
): Promise<string | null> {
  const known = verifiedCookies.get(raw);
  if (known !== undefined) return known;
  const id = await verify(raw);
  remember(verifiedCookies, raw, id);
  return id;
}

/**
 * Clears the cached sessions here and on every other instance. Call it after the change has
 * committed (a read between a clear and the commit would keep the old answer): whenever a
 * session ends, or a user's name, email, status, roles or temporary password change.
 */
export function invalidateSessions(): Promise<void> {
  return invalidateEverywhere("sessions");
}
