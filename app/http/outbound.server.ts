import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { env } from "../env.server";
import { type Cidr, inCidrs, parseAddress, parseCidrList } from "./cidr";
import { bareHost, isIpLiteral } from "./host-name";
import { inSpan, tracing } from "./tracing.server";

// Every request to an address an admin typed goes through `outboundFetch`: public addresses only,
// checked when connecting, after DNS, so DNS rebinding cannot pass (decision 028).

/** undici's `fetch` reports it as the `cause` of its TypeError. */
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

// ipaddr.js calls every IPv6 address it has no name for "unicast", including IPv4-compatible ::/96.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
function isGlobalUnicast(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === "ipv4" || address.match(GLOBAL_UNICAST_V6);
}

export function isAllowedAddress(ip: string): boolean {
  const address = parseAddress(ip);
  if (!address) return false;
  if (address.range() === "unicast" && isGlobalUnicast(address)) return true;
  return inCidrs(address, allowList());
}

export function isInOpenedRange(ip: string): boolean {
  const address = parseAddress(ip);
  return address !== null && inCidrs(address, allowList());
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

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

/** An address literal is checked before connecting (net.connect skips `lookup` for one), and the peer once more. */
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

/** No redirects; the global fetch's signature, so libraries take it as a custom fetch. */
export function outboundFetch(url: string | URL, init: OutboundInit = {}): Promise<Response> {
  const send = () =>
    undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: "manual",
      dispatcher: dispatcher(),
      // undici's Response differs from the global one only in its body's chunk type.
    }) as Promise<Response>;
  if (!tracing()) return send();
  // The host only: a path or query may carry a token. A URL that does not parse fails in undici, as before.
  const host = URL.canParse(url) ? new URL(url).host : "invalid";
  return inSpan(
    `HTTP ${init.method ?? "GET"} ${host}`,
    { kind: "client", attributes: { "server.address": host } },
    send,
  );
}

export type OutboundInit = Omit<RequestInit, "body" | "redirect"> & {
  body?: RequestInit["body"] | Uint8Array;
  redirect?: RequestRedirect;
};

export function isOutboundRefusal(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof OutboundRefused) return true;
  return false;
}

const SAVE_LOOKUP_MS = 3_000;

/** A clear field error at save time; the connect-time check still decides every request. */
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
