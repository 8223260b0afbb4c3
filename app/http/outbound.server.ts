import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { env } from "../env.server";
import { type Cidr, parseCidrList } from "./cidr";
import { bareHost, isIpLiteral } from "./host-name";

// Every request the server makes to an address an admin typed (single sign-on discovery, token and
// userinfo calls; outgoing webhooks when they land) goes through `outboundFetch`: only to public
// addresses, checked when connecting, after DNS, so a name that resolves inside (or starts to,
// DNS rebinding) and the short or decimal IPv4 forms (`127.1`, `2130706433`) cannot pass.
// Redirects are never followed. `OUTBOUND_ALLOW_PRIVATE` (comma-separated CIDRs) opens chosen
// ranges: `127.0.0.0/8` for tests, `10.0.0.0/8` for an identity provider on premises.
// docs/decisions/028-outbound-connections.md.

/** A connection the rule refused; undici's `fetch` reports it as the `cause` of its TypeError. */
class OutboundRefused extends Error {
  readonly code = "OUTBOUND_REFUSED";
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`Refused to connect to ${host} (${address}): not a public address.`);
  }
}

let allowed: { raw: string | undefined; list: Cidr[] } | undefined;
function allowList(): Cidr[] {
  const raw = env().OUTBOUND_ALLOW_PRIVATE;
  if (!allowed || allowed.raw !== raw) allowed = { raw, list: parseCidrList(raw) };
  return allowed.list;
}

// IANA's global unicast block. ipaddr.js calls every IPv6 address it has no name for "unicast",
// including the deprecated IPv4-compatible ::/96 (`::7f00:1` is 127.0.0.1 on a host with a ::/96 route).
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
function isGlobalUnicast(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === "ipv4" || address.match(GLOBAL_UNICAST_V6);
}

/** True for a public unicast address, or one inside a range OUTBOUND_ALLOW_PRIVATE opens. */
export function isAllowedAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let address = ipaddr.parse(ip);
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.range() === "unicast" && isGlobalUnicast(address)) return true;
  return allowList().some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
}

/** True for an address literal inside a range OUTBOUND_ALLOW_PRIVATE opens (not merely public). */
export function isInOpenedRange(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let address = ipaddr.parse(ip);
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  return allowList().some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** net.connect's `lookup`: resolves every address and refuses the name when any one is not allowed. */
function checkedLookup(hostname: string, options: LookupOptions, callback: LookupCallback) {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => !isAllowedAddress(a.address));
    if (refused || addresses.length === 0)
      return callback(new OutboundRefused(hostname, refused?.address ?? "none"), []);
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The connector: an address literal is checked before any packet is sent (net.connect skips
 * `lookup` for one), a name through `checkedLookup`, and the socket's peer once more.
 */
function checkedConnector(): buildConnector.connector {
  const base = buildConnector({ lookup: checkedLookup, timeout: CONNECT_TIMEOUT_MS });
  return (options, callback) => {
    const host = bareHost(options.hostname);
    if (isIpLiteral(host) && !isAllowedAddress(host)) return callback(new OutboundRefused(host, host), null);
    base(options, (error, socket) => {
      if (error) return callback(error, null);
      const peer = socket!.remoteAddress;
      if (peer && !isAllowedAddress(peer)) {
        socket!.destroy();
        return callback(new OutboundRefused(host, peer), null);
      }
      callback(null, socket!);
    });
  };
}

let agent: Agent | undefined;
function dispatcher(): Agent {
  agent ??= new Agent({ connect: checkedConnector(), connections: 16 });
  return agent;
}

/**
 * `fetch` for addresses an administrator typed: public addresses only (see above), no redirects
 * (a 3xx comes back as it is). The signature of the global fetch, so libraries take it as a custom
 * fetch (openid-client's `customFetch`).
 */
export function outboundFetch(url: string | URL, init: OutboundInit = {}): Promise<Response> {
  return undiciFetch(url, {
    ...(init as Parameters<typeof undiciFetch>[1]),
    redirect: "manual",
    dispatcher: dispatcher(),
    // undici's Response is the global one but for its body's chunk type (`any` where the DOM's
    // says bytes): the one difference tsc names.
  }) as Promise<Response>;
}

/** What a request may carry (the global RequestInit, and the byte bodies libraries send). */
export type OutboundInit = Omit<RequestInit, "body" | "redirect"> & {
  body?: RequestInit["body"] | Uint8Array;
  redirect?: RequestRedirect;
};

/** Whether an error (or its cause) is a refusal of this module. */
export function isOutboundRefusal(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof OutboundRefused) return true;
  return false;
}

const SAVE_LOOKUP_MS = 3_000;

/**
 * The check when an address is saved, so a typo'd inside address gets a clear field error at once:
 * null when the host is (or resolves to) allowed addresses only, else the address refused. A name
 * that does not resolve now passes here; the connect-time check still decides every request.
 */
export async function refusedAddressOf(url: string): Promise<string | null> {
  let host: string;
  try {
    host = bareHost(new URL(url).hostname);
  } catch {
    return null;
  }
  if (isIpLiteral(host)) return isAllowedAddress(host) ? null : host;
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), SAVE_LOOKUP_MS);
    dnsLookup(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found);
    });
  });
  return addresses.find((a) => !isAllowedAddress(a.address))?.address ?? null;
}
