import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env.server";
import { isAllowedAddress, isOutboundRefusal, outboundFetch, refusedAddressOf } from "./outbound.server";

// Outbound connections to addresses an admin typed: public addresses only, checked after DNS when
// connecting, no redirects; OUTBOUND_ALLOW_PRIVATE opens chosen ranges.

let server: Server;
let port = 0;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.url === "/redirect") {
      res.writeHead(302, { Location: "http://127.0.0.1:1/elsewhere" }).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function allowPrivate(value: string | undefined) {
  if (value === undefined) delete process.env.OUTBOUND_ALLOW_PRIVATE;
  else process.env.OUTBOUND_ALLOW_PRIVATE = value;
  resetEnvCache();
}
afterEach(() => allowPrivate(undefined));

describe("which addresses are public", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    // IPv4-compatible (deprecated ::/96) and other blocks outside global unicast 2000::/3
    "::7f00:1",
    "::a9fe:a9fe",
    "100::1",
    "224.0.0.1",
    "not an address",
  ])("%s is not", (ip) => {
    expect(isAllowedAddress(ip)).toBe(false);
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("%s is", (ip) => {
    expect(isAllowedAddress(ip)).toBe(true);
  });

  it("OUTBOUND_ALLOW_PRIVATE opens exactly the ranges it names", () => {
    allowPrivate("127.0.0.0/8, 10.0.0.0/8");
    expect(isAllowedAddress("127.0.0.1")).toBe(true);
    expect(isAllowedAddress("::ffff:127.0.0.1")).toBe(true);
    expect(isAllowedAddress("10.9.9.9")).toBe(true);
    expect(isAllowedAddress("192.168.1.1")).toBe(false);
    expect(isAllowedAddress("169.254.169.254")).toBe(false);
    expect(isAllowedAddress("::1")).toBe(false);
  });
});

describe("the check when an address is saved", () => {
  it.each([
    ["http://169.254.169.254/latest", "169.254.169.254"],
    ["http://localhost:5432", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["https://127.1/", "127.0.0.1"],
    ["https://[::1]/", "::1"],
    ["https://0x7f.1/", "127.0.0.1"],
  ])("refuses %s", async (url, address) => {
    const refused = await refusedAddressOf(url);
    // localhost may resolve to ::1 first.
    expect(refused === address || refused === "::1").toBe(true);
  });

  it("passes a name that does not resolve now (the connect-time check decides later)", async () => {
    expect(await refusedAddressOf("https://login.acme.example")).toBeNull();
  });

  it("passes an allowed private range", async () => {
    allowPrivate("127.0.0.0/8,::1/128");
    expect(await refusedAddressOf("http://localhost:5432")).toBeNull();
    expect(await refusedAddressOf("http://2130706433/")).toBeNull();
  });
});

describe("connecting", () => {
  it("refuses a name that resolves to 127.0.0.1 when connecting, before a request is sent", async () => {
    const before = requests;
    const error = await outboundFetch(`http://localhost:${port}/`).catch((e: unknown) => e);
    expect(isOutboundRefusal(error)).toBe(true);
    expect(requests).toBe(before);
  });

  it.each(["127.0.0.1", "2130706433", "127.1", "[::ffff:7f00:1]"])(
    "refuses the address literal %s",
    async (host) => {
      const before = requests;
      const error = await outboundFetch(`http://${host}:${port}/`).catch((e: unknown) => e);
      expect(isOutboundRefusal(error)).toBe(true);
      expect(requests).toBe(before);
    },
  );

  it("connects to an allowed range, and hands a redirect back instead of following it", async () => {
    allowPrivate("127.0.0.0/8");
    const ok = await outboundFetch(`http://localhost:${port}/`);
    expect(await ok.json()).toEqual({ ok: true });
    const before = requests;
    const redirected = await outboundFetch(`http://127.0.0.1:${port}/redirect`);
    expect(redirected.status).toBe(302);
    expect(requests).toBe(before + 1);
  });
});
