import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { context, ORIGIN, request, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
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

  it("refuses a sibling subdomain (same-site) and an opaque or mismatched Origin", async () => {
    expect(
      await statusOf(post("/logout", { "Sec-Fetch-Site": "same-site", Origin: "http://sub.localhost:3000" })),
    ).toBe(403);
    expect(await statusOf(post("/logout", { "Sec-Fetch-Site": "none" }))).toBe(403);
    expect(await statusOf(post("/logout", { Origin: "null" }))).toBe(403);
    expect(
      await statusOf(post("/logout", { "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" })),
    ).toBe(403);
  });

  it("accepts BASE_URL's origin (a proxy in front may change the scheme the app sees)", async () => {
    const req = new Request("http://10.0.0.5:3000/logout", {
      method: "POST",
      headers: { "Sec-Fetch-Site": "same-origin", Origin: ORIGIN },
    });
    const res = await csrfMiddleware(
      { request: req, context: context(), params: {} } as never,
      next as never,
    );
    expect((res as Response).status).toBe(200);
  });

  it("leaves signed webhooks to their own check", async () => {
    expect(await statusOf(post("/api/webhooks/tasks", { "Sec-Fetch-Site": "cross-site" }))).toBe(200);
  });

  it("skips an /api request with a bearer token and no cookie at all, and only that", async () => {
    const crossSite = { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" };
    const auth = { Authorization: `Bearer dash_${"a".repeat(43)}` };
    expect(await statusOf(post("/api/tasks", { ...crossSite, ...auth }))).toBe(200);
    expect(await statusOf(post("/api/tasks", { ...crossSite, ...auth, Cookie: "theme=dark" }))).toBe(403);
    expect(await statusOf(post("/api/tasks", { ...crossSite, Authorization: "Basic YTpi" }))).toBe(403);
    expect(await statusOf(post("/dashboard/settings/api-tokens", { ...crossSite, ...auth }))).toBe(403);
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

describe("CSRF through the whole request pipeline", () => {
  let app: AppServer;
  beforeAll(async () => {
    await setupDatabase();
    app = await startApp();
  }, 60_000);
  afterAll(() => app?.close());

  const json = { "Content-Type": "application/json" };
  const formType = { "Content-Type": "application/x-www-form-urlencoded" };
  const targets = [
    { path: "/api/tasks", headers: json, body: JSON.stringify({ type: "report.generate" }) },
    { path: "/api/mail", headers: json, body: JSON.stringify({ to: "someone@example.test" }) },
    { path: "/api/access/sync", headers: json, body: "" },
    { path: "/logout", headers: formType, body: "" },
    { path: "/dashboard/teams", headers: formType, body: "intent=create&name=Forged+team" },
  ];
  const foreign: Record<string, Record<string, string>> = {
    "same-site": { "Sec-Fetch-Site": "same-site", Origin: "http://sub.localhost:3000" },
    "same-site (no Origin)": { "Sec-Fetch-Site": "same-site" },
    "cross-site": { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
    "foreign Origin only": { Origin: "https://evil.example" },
  };

  async function counts(userId: string) {
    const [tasks, teams, sessions, audit] = await Promise.all([
      db().selectFrom("task").select(db().fn.countAll().as("n")).executeTakeFirstOrThrow(),
      db().selectFrom("team").select(db().fn.countAll().as("n")).executeTakeFirstOrThrow(),
      db()
        .selectFrom("session")
        .select(db().fn.countAll().as("n"))
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow(),
      db().selectFrom("audit_log").select(db().fn.countAll().as("n")).executeTakeFirstOrThrow(),
    ]);
    return [tasks, teams, sessions, audit].map((r) => Number(r.n));
  }

  for (const [label, headers] of Object.entries(foreign)) {
    it.each(targets)(`refuses a ${label} POST to $path with 403, changing nothing`, async (target) => {
      const admin = await signedIn(["super_admin"]);
      const before = await counts(admin.id);
      const res = await app.fetch(target.path, {
        method: "POST",
        cookie: admin.cookie,
        headers: { ...target.headers, ...headers },
        body: target.body,
      });
      // React Router refuses a page action whose Origin is not the request's with its own 400
      // before any middleware runs; everything else meets our 403.
      const routerCheck = !target.path.startsWith("/api/") && target.path !== "/logout" && headers.Origin;
      expect(res.status).toBe(routerCheck ? 400 : 403);
      if (target.path.startsWith("/api/"))
        expect(await res.json()).toEqual({ error: "forbidden", reason: "cross_site_request" });
      expect(await counts(admin.id)).toEqual(before);
    });
  }

  it("lets same-origin requests through to the routes", async () => {
    const admin = await signedIn(["super_admin"]);
    const post = (path: string, headers: Record<string, string>, body: string) =>
      app.fetch(path, {
        method: "POST",
        cookie: admin.cookie,
        headers: { "Sec-Fetch-Site": "same-origin", Origin: ORIGIN, ...headers },
        body,
      });
    // Bodies the routes themselves refuse: reaching that answer proves the CSRF check passed.
    expect((await post("/api/tasks", json, "{not json")).status).toBe(400);
    expect((await post("/api/mail", json, JSON.stringify({ to: "nope" }))).status).toBe(400);
    expect((await post("/api/access/sync", json, "")).status).toBe(200);
    const team = await post("/dashboard/teams", formType, "intent=create&name=Real+team");
    expect(team.status).toBe(302);
    expect(await db().selectFrom("team").select("name").execute()).toEqual([{ name: "Real team" }]);
    const out = await post("/logout", formType, "");
    expect(out.status).toBe(302);
    expect(await counts(admin.id)).toMatchObject({ 2: 0 });
  });
});
