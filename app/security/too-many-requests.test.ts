import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { context, run, setupDatabase } from "../../test/helpers";
import { limitPublicForm, type PublicForm } from "../auth/public-form-limit.server";
import { tooManyRequests, tooManyRequestsForm, tooManyRequestsInit } from "../http/responses";
import { englishTranslator } from "../i18n/english.server";
import { resetRateLimits } from "./rate-limit.server";

// Every 429 carries Retry-After (docs/http-contract.md, "Limits"). The sign-in and Settings paths are covered in
// app/auth/login.test.ts and app/settings/reauth-limit.test.ts; this file covers the helper,
// the public forms, and that no code answers 429 around the helper.

beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

describe("the 429 helper", () => {
  it("answers the API flavour as JSON with Retry-After in whole seconds", async () => {
    const out = await run(() => tooManyRequests(2.2));
    expect(out).toMatchObject({ status: 429, body: { error: "rate_limited", retryAfter: 3 } });
    expect(out.headers.get("Retry-After")).toBe("3");
  });

  it("answers the form flavour with the action's data, a message and Retry-After", async () => {
    const out = await run(() =>
      tooManyRequestsForm(900, { ok: false, intent: "password" }, englishTranslator()),
    );
    expect(out.status).toBe(429);
    expect(out.headers.get("Retry-After")).toBe("900");
    expect(out.body).toEqual({
      error: "rate_limited",
      ok: false,
      intent: "password",
      formError: expect.stringMatching(/15 minutes/),
    });
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])("never sends a Retry-After below 1 (%s)", (s) => {
    expect(Number(tooManyRequestsInit(s).headers["Retry-After"])).toBeGreaterThanOrEqual(1);
  });
});

describe("public forms", () => {
  it.each(["register", "forgot-password", "resend-verification"] as const)(
    "%s answers 429 with Retry-After once the address has used its budget",
    async (name: PublicForm) => {
      const ctx = context("192.0.2.200");
      for (let i = 0; i < 5; i++) expect(await limitPublicForm({ context: ctx }, name)).toBeNull();
      const out = await run(() => limitPublicForm({ context: ctx }, name));
      expect(out.status).toBe(429);
      expect(Number(out.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(out.body).toMatchObject({ ok: false, formError: expect.stringMatching(/try again/i) });
    },
  );
});

describe("no 429 outside the helper", () => {
  const root = join(__dirname, "../..");
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });
  const answers429 =
    /(status\s*:\s*429|status\(\s*429|sendStatus\(\s*429|writeHead\(\s*429|(apiError|json|Response)\(\s*429)/;

  it("finds every 429 in app/http/responses.ts", () => {
    const sources = [...files(join(root, "app")), join(root, "server.ts")].filter(
      (f) => /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.endsWith(join("http", "responses.ts")),
    );
    const offenders = sources
      .filter((f) => answers429.test(readFileSync(f, "utf8")))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });

  it("every page route that can answer 429 exports the headers that carry Retry-After", () => {
    // test/retry-after.test.ts shows the header is dropped without it, through the real pipeline.
    const can429 =
      /tooManyRequestsForm|actionError|handleIntents|handleAction|limitPublicForm|runSettingsIntent|attemptLogin/;
    const missing = files(join(root, "app", "routes"))
      .filter((f) => f.endsWith(".tsx") && can429.test(readFileSync(f, "utf8")))
      .filter((f) => !/export const headers = passRetryAfter;/.test(readFileSync(f, "utf8")))
      .map((f) => relative(root, f));
    expect(missing).toEqual([]);
  });
});
