import { baseUrl, env } from "../env.server";
import { isHostHeader } from "./request-guards.server";

// The names the server answers to (docs/security.md, "Requests"): BASE_URL's host and
// ALLOWED_HOSTS, and in development the loopback names on the port it listens on. Any other Host
// is refused before anything runs: a page on another name that the attacker's DNS points at this
// server (DNS rebinding) would otherwise be same-origin with itself and pass the origin check.
// /healthz answers any Host (app/http/node-server.server.ts), so load balancers probe by address.

/** The loopback names `npm run dev` answers to besides BASE_URL's, whichever one the developer opens. */
const DEVELOPMENT_LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

type HostAllowListOptions = {
  /** The service's own address (`baseUrl()`, app/env.server.ts). */
  baseUrl: string;
  /**
   * ALLOWED_HOSTS: comma-separated names, each with an optional port; a name without one is
   * allowed on BASE_URL's port.
   */
  allowedHosts?: string;
  /** Development: the port the server listens on, where the loopback names are answered too. */
  loopbackPort?: number;
};

// A name and an optional port (an IPv6 address in brackets), as a Host header carries them.
const NAME_AND_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d+))?$/;

/**
 * Whether the server answers to a Host header (or a trusted X-Forwarded-Host), compared as the
 * browser's origin would be: case-insensitive, the default port of BASE_URL's scheme written or
 * not, addresses in their canonical form. Throws on an ALLOWED_HOSTS entry that names no host, so
 * a typo stops the start instead of refusing every request.
 */
export function hostAllowList(options: HostAllowListOptions): (host: string) => boolean {
  const base = new URL(options.baseUrl);
  const canonical = (host: string): string | null => {
    if (!isHostHeader(host)) return null;
    try {
      return new URL(`${base.protocol}//${host}`).host;
    } catch {
      return null;
    }
  };
  const names = new Set([base.host]);
  const add = (entry: string) => {
    const match = NAME_AND_PORT.exec(entry);
    const host = match && (match[2] || !base.port ? entry : `${entry}:${base.port}`);
    const name = host ? canonical(host) : null;
    if (!name) throw new Error(`ALLOWED_HOSTS: "${entry}" is not a host name (name or name:port)`);
    names.add(name);
  };
  for (const entry of (options.allowedHosts ?? "").split(",")) if (entry.trim()) add(entry.trim());
  if (options.loopbackPort !== undefined)
    for (const name of DEVELOPMENT_LOOPBACK) add(`${name}:${options.loopbackPort}`);
  return (host) => {
    if (names.has(host)) return true; // the usual case, written as BASE_URL writes it
    const name = canonical(host);
    return name !== null && names.has(name);
  };
}

/** The list server.ts applies: BASE_URL and ALLOWED_HOSTS, plus loopback on `port` in development. */
export function configuredHostAllowList(options: { development: boolean; port: number }) {
  return hostAllowList({
    baseUrl: baseUrl(),
    allowedHosts: env().ALLOWED_HOSTS,
    loopbackPort: options.development ? options.port : undefined,
  });
}
