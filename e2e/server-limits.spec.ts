import { request as httpRequest } from "node:http";
import { E2E_PORT } from "./env";
import { expect, test } from "./fixtures";

// The production server stack (server.ts in front of the build): what no unit test can reach.

test("the favicon is served and linked, so no page logs a 404 for it", async ({ page, request }) => {
  const ico = await request.get("/favicon.ico");
  expect(ico.status()).toBe(200);
  expect(ico.headers()["content-type"]).toMatch(/icon/);
  const svg = await request.get("/favicon.svg");
  expect(svg.status()).toBe(200);
  expect(svg.headers()["content-type"]).toMatch(/^image\/svg\+xml/);

  const missing: string[] = [];
  page.on("response", (res) => {
    if (res.status() === 404) missing.push(res.url());
  });
  await page.goto("/login");
  await expect(page.locator('link[rel="icon"][href="/favicon.svg"]')).toHaveCount(1);
  expect(missing).toEqual([]);
});

test("a form over 64 KB gets 413 with Connection: close, and the server goes on answering", async ({
  request,
}) => {
  const big = await request.post("/login", {
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    data: `email=${"a".repeat(70 * 1024)}`,
  });
  expect(big.status()).toBe(413);
  expect(big.headers().connection).toBe("close");
  expect((await request.get("/login")).status()).toBe(200);
});

test("a chunked body is cut at the limit; the client reads the 413", async () => {
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port: Number(E2E_PORT),
      path: "/login",
      method: "POST",
      headers: { Host: `localhost:${E2E_PORT}`, "Content-Type": "application/x-www-form-urlencoded" },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", (e) => {
      if (!answered) reject(e);
    });
    req.write("email=");
    const chunk = Buffer.alloc(16 * 1024, "x");
    let left = 64; // 1 MB
    const pump = () => {
      while (left-- > 0) if (!req.write(chunk)) return void req.once("drain", pump);
      req.end();
    };
    pump();
  });
  expect(answer.status).toBe(413);
  expect(answer.body).toContain("too large");
});

test("a page action posted as JSON gets 415, not 500", async ({ request }) => {
  const res = await request.post("/login", {
    headers: { "Content-Type": "application/json" },
    data: { email: "a@example.test", password: "x" },
  });
  expect(res.status()).toBe(415);
});

/** One request with raw headers (Host included, or left out), answered status and body. */
function rawRequest(opts: {
  method?: string;
  path: string;
  headers: Record<string, string>;
  setHost?: boolean;
}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port: Number(E2E_PORT),
      method: opts.method ?? "GET",
      path: opts.path,
      // BASE_URL's host (e2e/server.ts): the server answers to no other (app/http/allowed-hosts.server.ts).
      headers: opts.setHost === false ? opts.headers : { Host: `localhost:${E2E_PORT}`, ...opts.headers },
      setHost: false,
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("a missing or malformed Host is a 400, not a 500", async () => {
  for (const host of ["", "a b", "[::1", "a:99999", "a/b"]) {
    const answer = await rawRequest({ path: "/login", headers: host ? { Host: host } : {}, setHost: false });
    expect(answer.status, `Host: ${host}`).toBe(400);
  }
  expect((await rawRequest({ path: "/login", headers: {} })).status).toBe(200);
});

test("a state-changing request from another origin is a 403 on pages too, before React Router's own check", async () => {
  const refusedHeaders: Record<string, string>[] = [
    { Origin: "http://evil.test" },
    { Origin: "null" },
    { "Sec-Fetch-Site": "cross-site", Origin: "http://evil.test" },
    { "Sec-Fetch-Site": "same-site" },
  ];
  for (const headers of refusedHeaders) {
    for (const path of ["/login", "/login.data", "/register", "/api/tasks"]) {
      const answer = await rawRequest({ method: "POST", path, headers });
      expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
    }
  }
});
