import type { GrantRow } from "../access/grant-rows.server";
import { invalidateEverywhere, registerCache } from "../events/cluster.server";

// Sessions, users and roles are read once per session and kept until invalidateSessions() clears
// them on every instance (decision 041); a session past its expiry is read again, never served from here.

export type CachedSession = {
  userId: string;
  name: string;
  email: string;
  mustChangePassword: boolean;
  /** The super admin's own while viewing as someone. */
  locale?: string | null;
  twoFactorEnrolmentDue?: boolean;
  /** Every grant with its expiry: which are live is judged per request, so one expires on time. */
  grants: GrantRow[];
  /** Mutated in place when this instance renews the session. */
  expiresAt: string;
  createdAt: string;
  /** Mutated in place when this instance notes a use (app/auth/session-policy.server.ts). */
  lastSeenAt: string;
  /** While viewing as someone: the super admin's own grants, whose session limits and network rules still apply. */
  ownGrants?: GrantRow[];
  impersonator?: { id: string; email: string; until: string } | null;
};

function current(session: CachedSession): boolean {
  const t = Date.now();
  return (
    Date.parse(session.expiresAt) > t && (!session.impersonator || Date.parse(session.impersonator.until) > t)
  );
}

const MAX_ENTRIES = 20_000;

// Replaced, not cleared, on invalidation: a read still in flight then lands in the old map.
let sessions = new Map<string, Promise<CachedSession | null>>();
const verifiedCookies = new Map<string, string | null>();

registerCache("sessions", () => {
  sessions = new Map();
});

function remember<K, V>(map: Map<K, V>, key: K, value: V) {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/** The database judges whether an expired entry was renewed elsewhere or has ended. */
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

/** Verifying costs an HMAC through WebCrypto on every request otherwise; the answer never changes while the secrets stay. */
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

/** Call it after the change has committed, or a read in between would keep the old answer. */
export function invalidateSessions(): Promise<void> {
  return invalidateEverywhere("sessions");
}
