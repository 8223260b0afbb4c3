import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "./app-server";
import { setupDatabase, signedIn } from "./helpers";

// Every 429 a person can meet carries Retry-After, through the real pipeline: React Router drops
// an action's headers other than Set-Cookie unless its route exports `headers`, so a test that
// calls the action alone cannot see this (it did not: the forms answered 429 without it).

let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
});
afterAll(() => app?.close());

const form = (values: Record<string, string>) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(values).toString(),
});

/** Posts until the answer is 429 (at most `tries`), from one client address. */
async function until429(path: string, values: Record<string, string>, ip: string, cookie?: string) {
  for (let i = 0; i < 12; i++) {
    const res = await app.fetch(path, { ...form(values), ip, cookie });
    if (res.status === 429) return res;
    await res.body?.cancel();
  }
  throw new Error(`${path} never answered 429`);
}

describe("Retry-After on every 429 of the forms", () => {
  const forms: [string, Record<string, string>][] = [
    ["/login", { email: "nobody@example.test", password: "wrong password" }],
    ["/register", { name: "N", email: "bad", password: "x" }],
    ["/forgot-password", { email: "nobody@example.test" }],
    ["/resend-verification", { email: "nobody@example.test" }],
  ];
  let ip = 0;
  it.each(forms.flatMap(([path, values]) => [[path, values] as const, [`${path}.data`, values] as const]))(
    "%s",
    async (path, values) => {
      const res = await until429(path, values, `192.0.2.${++ip}`);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    },
  );

  it("Settings' current-password check, page and data request", async () => {
    for (const path of ["/dashboard/settings/security", "/dashboard/settings/security.data"]) {
      const { cookie } = await signedIn(["user"]);
      const values = {
        intent: "password",
        currentPassword: "not it at all",
        newPassword: "a new long passphrase",
        confirm: "a new long passphrase",
      };
      const res = await until429(path, values, "192.0.2.200", cookie);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
  });
});
