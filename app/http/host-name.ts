import ipaddr from "ipaddr.js";

// Host names as URLs and Host headers carry them, for every module that asks whether a host is an
// address (outbound connections, passkeys' relying party). No Node imports: the browser bundle may
// reach this file (app/auth/passkey-availability.ts).

/** The host without the brackets a URL puts around an IPv6 address (`[::1]` is `::1`). */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Whether a host (bracketed or not) is an IP address literal: IPv4 in its dotted four-part
 * decimal form (URLs write every other form so) or IPv6. Not a name that resolves to one.
 */
export function isIpLiteral(hostname: string): boolean {
  const host = bareHost(hostname);
  return ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host);
}
