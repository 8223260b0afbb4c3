import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { bareHost, isIpLiteral } from "./host-name";

describe("host names", () => {
  it("takes the brackets off an IPv6 host only", () => {
    expect(bareHost("[::1]")).toBe("::1");
    expect(bareHost("::1")).toBe("::1");
    expect(bareHost("example.test")).toBe("example.test");
  });

  it.each([
    ["127.0.0.1", true],
    ["[::1]", true],
    ["::ffff:1.2.3.4", true],
    ["fe80::1%eth0", true],
    ["127.1", false],
    ["2130706433", false],
    ["1.2.3.4.5", false],
    ["localhost", false],
    ["example.test", false],
    ["", false],
  ])("%s is an address literal: %s (as node:net's isIP says)", (host, literal) => {
    expect(isIpLiteral(host)).toBe(literal);
    expect(isIP(bareHost(host)) !== 0).toBe(literal);
  });
});
