import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env.server";
import { configuredHostAllowList, hostAllowList } from "./allowed-hosts.server";

describe("the hosts the server answers to", () => {
  it("is BASE_URL's host on its port, compared as an origin (case, default port)", () => {
    const allowed = hostAllowList({ baseUrl: "https://Dash.Example.com/" });
    for (const host of ["dash.example.com", "DASH.example.com", "dash.example.com:443"])
      expect(allowed(host), host).toBe(true);
    for (const host of [
      "dash.example.com:80",
      "dash.example.com:3000",
      "evil.test",
      "dash.example.com.",
      "example.com",
      "",
    ])
      expect(allowed(host), host).toBe(false);
  });

  it("adds ALLOWED_HOSTS: a name without a port on BASE_URL's port, with one on that port only", () => {
    const allowed = hostAllowList({
      baseUrl: "http://localhost:3000",
      allowedHosts: " internal.example , 10.0.0.5:8080,[fd00::1] ,",
    });
    for (const host of ["localhost:3000", "internal.example:3000", "10.0.0.5:8080", "[FD00:0::1]:3000"])
      expect(allowed(host), host).toBe(true);
    for (const host of [
      "internal.example",
      "internal.example:8080",
      "10.0.0.5:3000",
      "10.0.0.5",
      "127.0.0.1:3000",
      "localhost",
    ])
      expect(allowed(host), host).toBe(false);
  });

  it("refuses to start on an ALLOWED_HOSTS entry that names no host", () => {
    for (const entry of ["a b", "http://x.test", "x.test/path", "::1", "x.test:99999"])
      expect(() => hostAllowList({ baseUrl: "http://localhost:3000", allowedHosts: entry }), entry).toThrow(
        /ALLOWED_HOSTS/,
      );
  });

  it("answers the loopback names on the listening port in development only", () => {
    const dev = hostAllowList({ baseUrl: "https://dash.example.com", loopbackPort: 3000 });
    for (const host of ["localhost:3000", "127.0.0.1:3000", "[::1]:3000", "dash.example.com"])
      expect(dev(host), host).toBe(true);
    for (const host of ["localhost:3001", "localhost", "0.0.0.0:3000", "evil.test:3000"])
      expect(dev(host), host).toBe(false);
  });
});

describe("the list server.ts applies", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetEnvCache();
  });

  it("reads BASE_URL (default http://localhost:PORT) and ALLOWED_HOSTS; loopback only for npm run dev", () => {
    process.env.PORT = "4100";
    delete process.env.BASE_URL;
    process.env.ALLOWED_HOSTS = "app.internal";
    resetEnvCache();
    const production = configuredHostAllowList({ development: false, port: 4100 });
    expect(production("localhost:4100")).toBe(true);
    expect(production("app.internal:4100")).toBe(true);
    expect(production("127.0.0.1:4100")).toBe(false);
    const development = configuredHostAllowList({ development: true, port: 4100 });
    expect(development("127.0.0.1:4100")).toBe(true);
    expect(development("[::1]:4100")).toBe(true);
  });
});
