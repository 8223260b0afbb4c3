import { baseUrl, env } from "../env.server";
import { isHostHeader } from "./request-guards.server";

// Any other Host is refused before anything runs, or a name the attacker's DNS points here (DNS
// rebinding) would be same-origin with itself (docs/security.md, "Requests").

const DEVELOPMENT_LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

type HostAllowListOptions = {
  baseUrl: string;
  /** A name without a port is allowed on BASE_URL's port. */
  allowedHosts?: string;
  loopbackPort?: number;
};

const NAME_AND_PORT = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d+))?$/;

/** Compared as a browser origin; an ALLOWED_HOSTS entry naming no host throws, so a typo stops the start. */
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

export function configuredHostAllowList(options: { development: boolean; port: number }) {
  return hostAllowList({
    baseUrl: baseUrl(),
    allowedHosts: env().ALLOWED_HOSTS,
    loopbackPort: options.development ? options.port : undefined,
  });
}
