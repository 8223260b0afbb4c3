import ipaddr from "ipaddr.js";
import { z } from "zod";

// Address ranges (CIDR): as written in the environment (`OUTBOUND_ALLOW_PRIVATE=127.0.0.0/8,10.0.0.0/8`)
// and on a role's network rule.

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

/** An address as ipaddr.js reads it, an IPv4-mapped IPv6 one (::ffff:10.0.0.1) as the IPv4 it is; null when not an address. */
export function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(ip)) return null;
  const address = ipaddr.parse(ip);
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return (address as ipaddr.IPv6).toIPv4Address();
  return address;
}

export function inCidrs(address: ipaddr.IPv4 | ipaddr.IPv6, list: readonly Cidr[]): boolean {
  return list.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
}

/** "unknown" or anything else not an address is in no range. */
export function addressInCidrs(ip: string, list: readonly Cidr[]): boolean {
  const address = parseAddress(ip);
  return address !== null && inCidrs(address, list);
}

/**
 * One range as a person writes it, kept in its network form ("10.1.2.3/8" is "10.0.0.0/8"), so the
 * rule shown is the rule applied. A bare address is that one address (/32, /128).
 */
export const cidrSchema = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const written = value.includes("/") ? value : `${value}/${value.includes(":") ? 128 : 32}`;
    // Four parts for IPv4: ipaddr.js also reads "10.0.0" and "167772160", which nobody means as a range.
    const fourParts = written.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(written.split("/")[0]!);
    if (value.length > 64 || !fourParts || !ipaddr.isValidCIDR(written)) {
      ctx.addIssue({
        code: "custom",
        message: "access.networks.invalid",
        params: { value: value.slice(0, 64) },
      });
      return z.NEVER;
    }
    const [address, bits] = ipaddr.parseCIDR(written);
    const network =
      address.kind() === "ipv4"
        ? ipaddr.IPv4.networkAddressFromCIDR(written)
        : ipaddr.IPv6.networkAddressFromCIDR(written);
    return `${network.toString()}/${bits}`;
  });

const MAX_NETWORKS = 50;

/** A role's allowed networks: empty means anywhere. */
export const networksSchema = z
  .array(cidrSchema)
  .max(MAX_NETWORKS, "access.networks.tooMany")
  .transform((list) => [...new Set(list)]);

/** An entry that is not a CIDR matches nothing: a damaged rule refuses rather than opens. */
export function toCidrs(networks: readonly string[]): Cidr[] {
  return networks.filter((n) => ipaddr.isValidCIDR(n)).map((n) => ipaddr.parseCIDR(n));
}
