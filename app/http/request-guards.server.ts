import type { IncomingMessage, ServerResponse } from "node:http";
import { crossOriginRefusal, isCrossOrigin } from "./security.server";

// Guards applied before a Request is built from the socket, or before React Router's own origin
// check would answer 400 where the contract says 403.

const HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function isHostHeader(value: string | undefined): value is string {
  return value !== undefined && HOST.test(value);
}

const BAD_HOST_MESSAGE = "Bad Request: missing or invalid Host header.\n";

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function forwarded(req: IncomingMessage, name: string, trustProxy: number): string | undefined {
  if (trustProxy <= 0) return undefined;
  return header(req, name)?.split(",")[0]?.trim() || undefined;
}

/** With TRUST_PROXY = n, the address n hops back in X-Forwarded-For: proxies beyond those can not forge it. */
export function clientAddress(req: IncomingMessage, trustProxy: number): string {
  const socket = req.socket.remoteAddress ?? "unknown";
  if (trustProxy <= 0) return socket;
  const hops = (header(req, "x-forwarded-for") ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean)
    .reverse();
  const chain = [socket, ...hops];
  return chain[Math.min(trustProxy, chain.length - 1)]!;
}

function requestProtocol(req: IncomingMessage, trustProxy: number): "http" | "https" {
  const proto = forwarded(req, "x-forwarded-proto", trustProxy);
  if (proto === "https" || proto === "http") return proto;
  return "encrypted" in req.socket && req.socket.encrypted ? "https" : "http";
}

function requestHost(req: IncomingMessage, trustProxy: number): string | undefined {
  return forwarded(req, "x-forwarded-host", trustProxy) ?? header(req, "host")?.trim();
}

export function requestOrigin(req: IncomingMessage, trustProxy: number): string | null {
  const host = requestHost(req, trustProxy);
  if (!isHostHeader(host)) return null;
  try {
    return new URL(`${requestProtocol(req, trustProxy)}://${host}`).origin;
  } catch {
    return null; // e.g. a port above 65535
  }
}

export function requestPath(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

export function refuseBadHost(origin: string | null, res: ServerResponse): boolean {
  if (origin !== null) return false;
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  res.end(BAD_HOST_MESSAGE);
  return true;
}

const UNKNOWN_HOST_MESSAGE = "Bad Request: this server does not answer to that Host.\n";

/** DNS rebinding (app/http/allowed-hosts.server.ts): nothing of the request is read, not even its cookie. */
export function refuseUnknownHost(
  req: IncomingMessage,
  trustProxy: number,
  isAllowedHost: (host: string) => boolean,
  res: ServerResponse,
): boolean {
  const host = requestHost(req, trustProxy);
  if (host !== undefined && isAllowedHost(host)) return false;
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  res.end(UNKNOWN_HOST_MESSAGE);
  return true;
}

export function refuseCrossOrigin(req: IncomingMessage, origin: string, res: ServerResponse): boolean {
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return false;
  const pathname = requestPath(req);
  const headers = { get: (name: string) => header(req, name.toLowerCase()) ?? null };
  if (!isCrossOrigin({ method, pathname, headers }, origin)) return false;
  const answer = crossOriginRefusal();
  void answer.text().then((body) => {
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(body);
  });
  return true;
}
