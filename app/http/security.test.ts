import { describe, expect, it } from "vitest";
import { context, request } from "../../test/helpers";
import { csrfMiddleware, securityHeadersMiddleware } from "./security.server";

const next = async () => new Response("passed", { status: 200 });

function post(path: string, headers: Record<string, string>) {
  const req = request(path, { method: "POST", headers });
  return csrfMiddleware({ request: req, context: context(), params: {} } as never, next as never);
}

async function statusOf(promise: unknown) {
  try {
    return ((await promise) as Response).status;
  } catch (thrown) {
    return (thrown as Response).status;
  }
}

describe("CSRF middleware", () => {
  it("passes same-origin and header-less (non-browser) requests", async () => {
    expect(await statusOf(post("/logout", { "Sec-Fetch-Site": "same-origin" }))).toBe(200);
    expect(await statusOf(post("/logout", {}))).toBe(200);
    expect(await statusOf(post("/logout", { Origin: "http://localhost:3000" }))).toBe(200);
  });

  it("refuses a cross-site request by Sec-Fetch-Site", async () => {
    expect(
      await statusOf(post("/logout", { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" })),
    ).toBe(403);
    const res = (await post("/api/access/sync", { "Sec-Fetch-Site": "cross-site" })) as Response;
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "forbidden" });
  });

  it("refuses a foreign Origin when the browser sends no Sec-Fetch-Site", async () => {
    expect(await statusOf(post("/login", { Origin: "https://evil.example" }))).toBe(403);
  });

  it("leaves signed webhooks to their own check", async () => {
    expect(await statusOf(post("/api/webhooks/tasks", { "Sec-Fetch-Site": "cross-site" }))).toBe(200);
  });

  it("does not check safe methods", async () => {
    const req = request("/dashboard", { headers: { "Sec-Fetch-Site": "cross-site" } });
    const res = await csrfMiddleware(
      { request: req, context: context(), params: {} } as never,
      next as never,
    );
    expect((res as Response).status).toBe(200);
  });
});

describe("security headers", () => {
  it("sends an enforced CSP with a fresh nonce and the remix-utils headers", async () => {
    const run = async () =>
      (await securityHeadersMiddleware(
        { request: request("/"), context: context(), params: {} } as never,
        next as never,
      )) as Response;
    const [a, b] = [await run(), await run()];
    const csp = a.headers.get("Content-Security-Policy")!;
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toBe(b.headers.get("Content-Security-Policy"));
    expect(a.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(a.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
  });
});
