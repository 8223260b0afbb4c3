import { isIpLiteral } from "../http/host-name";

// Whether passkeys can work on a page (docs/decisions/019-passkeys.md). No server-only imports:
// the settings page's component takes the type, so the browser bundle may reach this file.

/** Whether passkeys can work on this page; when not, why, and the address where they do. */
export type PasskeyAvailability =
  | { available: true }
  | { available: false; reason: "ip-address" | "other-origin"; origin: string };

/**
 * Browsers refuse a WebAuthn relying party that is an IP address ("127.0.0.1 is an invalid
 * domain"), and a ceremony on a page whose host is not the RP ID (BASE_URL's) fails. Pages offer
 * passkeys only where they can work. Host names only: the scheme a proxy reports without
 * TRUST_PROXY says nothing about what the browser sees. `rp` is passkeys.server.ts's relyingParty().
 */
export function availabilityOn(pageUrl: string, rp: { id: string; origin: string }): PasskeyAvailability {
  const host = new URL(pageUrl).hostname;
  if (isIpLiteral(rp.id) || isIpLiteral(host))
    return { available: false, reason: "ip-address", origin: rp.origin };
  if (host !== rp.id) return { available: false, reason: "other-origin", origin: rp.origin };
  return { available: true };
}
