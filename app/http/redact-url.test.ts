import { describe, expect, it } from "vitest";
import { redactUrl } from "./redact-url";

describe("redactUrl", () => {
  it.each([
    ["/reset-password?token=abc123", "/reset-password?token=[redacted]"],
    ["/accept-invite?token=abc123", "/accept-invite?token=[redacted]"],
    ["/api/auth/verify-email?token=abc123", "/api/auth/verify-email?token=[redacted]"],
    [
      "/reset-password.data?token=abc123&_routes=routes%2Freset-password",
      "/reset-password.data?token=[redacted]&_routes=routes%2Freset-password",
    ],
    ["/callback?code=xyz&state=s1", "/callback?code=[redacted]&state=s1"],
    ["/x?secret=s3cr3t", "/x?secret=[redacted]"],
    ["/x?TOKEN=abc", "/x?TOKEN=[redacted]"],
    ["/x?Token=abc&Code=1", "/x?Token=[redacted]&Code=[redacted]"],
    ["/x?%74oken=abc", "/x?%74oken=[redacted]"],
    ["/x?%54%4F%4B%45%4E=abc", "/x?%54%4F%4B%45%4E=[redacted]"],
    [
      "/x?access_token=abc&api_key=k&password=p",
      "/x?access_token=[redacted]&api_key=[redacted]&password=[redacted]",
    ],
    ["/x?token=a&token=b", "/x?token=[redacted]&token=[redacted]"],
    ["/x?token", "/x?token"],
    ["/x?bad%ZZname=v", "/x?bad%ZZname=[redacted]"],
  ])("redacts %s", (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });

  it("drops a fragment, which may carry a token of its own", () => {
    expect(redactUrl("/accept-invite?token=abc#token=def")).toBe("/accept-invite?token=[redacted]");
    expect(redactUrl("/page#access_token=def")).toBe("/page");
  });

  it("leaves ordinary URLs and parameters alone", () => {
    expect(redactUrl("/dashboard/users?page=2&q=ann%40example.test&sort=name")).toBe(
      "/dashboard/users?page=2&q=ann%40example.test&sort=name",
    );
    expect(redactUrl("/dashboard")).toBe("/dashboard");
    expect(redactUrl("/login?redirectTo=%2Fdashboard")).toBe("/login?redirectTo=%2Fdashboard");
    expect(redactUrl("/x?postcode=12345&barcode=1")).toBe("/x?postcode=12345&barcode=1");
  });

  it("never lets the token value through, whatever the shape", () => {
    for (const url of [
      "/reset-password?token=LEAKME",
      "/reset-password?a=1&token=LEAKME&b=2",
      "/reset-password?to%6Ben=LEAKME",
      "/reset-password?token=LEAKME#x",
      "/reset-password?+token=LEAKME",
      "/reset-password?token+=LEAKME",
    ]) {
      expect(redactUrl(url)).not.toContain("LEAKME");
    }
  });
});
