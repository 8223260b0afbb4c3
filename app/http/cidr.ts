import ipaddr from "ipaddr.js";

// Address ranges (CIDR) as written in the environment: `OUTBOUND_ALLOW_PRIVATE=127.0.0.0/8,10.0.0.0/8`.

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses a comma-separated CIDR list; throws on an entry that is not a CIDR. */
export function parseCidrList(value: string | undefined): Cidr[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (!ipaddr.isValidCIDR(s)) throw new Error(`"${s}" is not a CIDR range like 10.0.0.0/8`);
      return ipaddr.parseCIDR(s);
    });
}
