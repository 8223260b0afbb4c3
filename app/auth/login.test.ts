import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  args,
  context,
  createUser,
  PASSWORD,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
} from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { english } from "../i18n/english.server";
import { action as loginAction } from "../routes/login/route";
import { action as logoutAction } from "../routes/logout";
import { resetRateLimits } from "../security/rate-limit.server";
import { BAD_CREDENTIALS } from "./login.server";

beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

let ipCounter = 0;
function login(values: Record<string, string>, opts: { ip?: string; cookie?: string } = {}) {
  const req = formRequest("/login", values, { cookie: opts.cookie, headers: { "User-Agent": "vitest" } });
  return run(() => loginAction(args(req, {}, context(opts.ip ?? `198.51.100.${++ipCounter}`))));
}

async function audits(action: string) {
  return db().selectFrom("audit_log").selectAll().where("action", "=", action).execute();
}

describe("POST /login", () => {
  it("signs in, sets a session cookie and lands on /dashboard", async () => {
    const user = await createUser({ roles: ["user"] });
    const out = await login({ email: user.email.toUpperCase(), password: PASSWORD });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard");
    const cookie = out.headers.get("Set-Cookie")!;
    expect(cookie).toMatch(/^__session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const sessions = await db().selectFrom("session").selectAll().where("user_id", "=", user.id).execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.user_agent).toBe("vitest");
    const ok = (await audits("auth.login.succeeded")).find((a) => a.actor_id === user.id);
    expect(ok?.ip).toMatch(/^198\.51\.100\./);
  });

  it("gives one message for a wrong password and an unknown email, and audits both", async () => {
    const user = await createUser({ roles: ["user"] });
    const wrong = await login({ email: user.email, password: "nope" });
    const unknown = await login({ email: "nobody@example.test", password: PASSWORD });
    expect(wrong).toMatchObject({ status: 400, body: { formError: english(BAD_CREDENTIALS) } });
    expect(unknown).toMatchObject({ status: 400, body: { formError: english(BAD_CREDENTIALS) } });
    const failed = await audits("auth.login.failed");
    expect(failed.map((f) => JSON.parse(f.details!).email)).toEqual(
      expect.arrayContaining([user.email, "nobody@example.test"]),
    );
    expect(JSON.stringify(failed)).not.toContain(PASSWORD);
  });

  it("refuses a disabled account and an unverified one", async () => {
    const disabled = await createUser({ status: "disabled", roles: ["user"] });
    const unverified = await createUser({ verified: false, roles: ["user"] });
    expect((await login({ email: disabled.email, password: PASSWORD })).status).toBe(400);
    const out = await login({ email: unverified.email, password: PASSWORD });
    expect(out.status).toBe(400);
    expect((out.body as { formError: string }).formError).toMatch(/verify/i);
    expect(
      await db()
        .selectFrom("session")
        .selectAll()
        .where("user_id", "in", [disabled.id, unverified.id])
        .execute(),
    ).toEqual([]);
  });

  it("rate limits per IP with 429 and Retry-After", async () => {
    const user = await createUser({ roles: ["user"] });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (await login({ email: `x${i}@example.test`, password: "bad" }, { ip: "192.0.2.50" })).status,
      );
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    const limited = await login({ email: user.email, password: PASSWORD }, { ip: "192.0.2.50" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await audits("auth.login.rate_limited")).not.toHaveLength(0);
  });

  it("rotates the session id at sign-in and deletes the old one", async () => {
    const user = await createUser({ roles: ["user"] });
    const old = await sessionCookieFor(user.id);
    const oldId = (
      await db().selectFrom("session").select("id").where("user_id", "=", user.id).executeTakeFirstOrThrow()
    ).id;
    const out = await login({ email: user.email, password: PASSWORD }, { cookie: old });
    expect(out.status).toBe(302);
    const ids = (await db().selectFrom("session").select("id").where("user_id", "=", user.id).execute()).map(
      (r) => r.id,
    );
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe(oldId);
  });

  it.each([
    "https://evil.example",
    "//evil.example/x",
    "/\\evil.example",
    "/.//evil.example",
    "/..//evil.example",
    "/%2e//evil.example",
  ])("ignores redirectTo=%s", async (target) => {
    const user = await createUser({ roles: ["user"] });
    const out = await login({ email: user.email, password: PASSWORD, redirectTo: target });
    expect(out.headers.get("Location")).toBe("/dashboard");
  });

  it("follows a same-origin redirectTo", async () => {
    const user = await createUser({ roles: ["user"] });
    const out = await login({
      email: user.email,
      password: PASSWORD,
      redirectTo: "/dashboard/settings?tab=1",
    });
    expect(out.headers.get("Location")).toBe("/dashboard/settings?tab=1");
  });
});

describe("sign-in limits", () => {
  const failed = async (email: string) =>
    (await audits("auth.login.failed")).filter((a) => JSON.parse(a.details!).email === email);
  const limited = async (email: string) =>
    (await audits("auth.login.rate_limited")).filter((a) => JSON.parse(a.details!).email === email);

  afterEach(async () => {
    delete process.env.RATE_LIMIT_LOGIN_PER_IP;
    delete process.env.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL;
    resetEnvCache();
    await resetRateLimits();
  });

  function withEnv(values: Record<string, string>) {
    Object.assign(process.env, values);
    resetEnvCache();
    return resetRateLimits();
  }

  it("evaluates at most 5 of 20 parallel wrong guesses for one account from one IP; the rest get 429 + Retry-After", async () => {
    await withEnv({ RATE_LIMIT_LOGIN_PER_IP: "1000" });
    const user = await createUser({ roles: ["user"] });
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        login({ email: user.email, password: `guess-${i}` }, { ip: "192.0.2.60" }),
      ),
    );
    const statuses = outs.map((o) => o.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    for (const o of outs.filter((o) => o.status === 429))
      expect(Number(o.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await failed(user.email)).toHaveLength(5);
    expect(await limited(user.email)).toHaveLength(15);
    // The right password from that address is refused too, and no session starts.
    expect((await login({ email: user.email, password: PASSWORD }, { ip: "192.0.2.60" })).status).toBe(429);
    expect(await db().selectFrom("session").selectAll().where("user_id", "=", user.id).execute()).toEqual([]);
  });

  it("lets the owner sign in from another address while one address has used up its failures", async () => {
    const user = await createUser({ roles: ["user"] });
    for (let i = 0; i < 5; i++)
      expect((await login({ email: user.email, password: "bad" }, { ip: "192.0.2.61" })).status).toBe(400);
    const blocked = await login({ email: user.email, password: PASSWORD }, { ip: "192.0.2.61" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(60);
    const owner = await login({ email: user.email, password: PASSWORD }, { ip: "192.0.2.62" });
    expect(owner.status).toBe(302);
  });

  it("refunds the failures of an address when the owner signs in from it", async () => {
    const user = await createUser({ roles: ["user"] });
    const ip = "192.0.2.63";
    for (let i = 0; i < 4; i++)
      expect((await login({ email: user.email, password: "bad" }, { ip })).status).toBe(400);
    expect((await login({ email: user.email, password: PASSWORD }, { ip })).status).toBe(302);
    for (let i = 0; i < 5; i++)
      expect((await login({ email: user.email, password: "bad" }, { ip })).status).toBe(400);
    expect((await login({ email: user.email, password: "bad" }, { ip })).status).toBe(429);
  });

  it("slows guesses spread over many addresses once the account's budget is spent, but not the owner at a known address", async () => {
    await withEnv({ RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL: "8" });
    const user = await createUser({ roles: ["user"] });
    expect((await login({ email: user.email, password: PASSWORD }, { ip: "192.0.2.70" })).status).toBe(302);
    for (let i = 0; i < 8; i++)
      expect((await login({ email: user.email, password: "bad" }, { ip: `198.18.0.${i}` })).status).toBe(400);
    // Fresh addresses now share one attempt every few seconds for this account.
    const outs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        login({ email: user.email, password: "bad" }, { ip: `198.18.1.${i}` }),
      ),
    );
    expect(outs.filter((o) => o.status === 400).length).toBeLessThanOrEqual(1);
    const slowed = outs.filter((o) => o.status === 429);
    expect(slowed.length).toBeGreaterThanOrEqual(5);
    for (const o of slowed) {
      const wait = Number(o.headers.get("Retry-After"));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(5);
    }
    expect(await failed(user.email)).toHaveLength(8 + outs.filter((o) => o.status === 400).length);
    // The owner, at an address they signed in from before, is not slowed down.
    expect((await login({ email: user.email, password: PASSWORD }, { ip: "192.0.2.70" })).status).toBe(302);
  });

  it("does not store what was typed into the email field unless it is an address", async () => {
    const out = await login({ email: "hunter2-password", password: "whatever" });
    expect(out.status).toBe(400);
    const rows = (await audits("auth.login.failed")).filter((a) => a.details?.includes("emailInvalid"));
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.details!)).toMatchObject({ email: null, emailInvalid: true });
    const all = await db().selectFrom("audit_log").selectAll().execute();
    expect(JSON.stringify(all)).not.toContain("hunter2");
  });
});

describe("POST /logout", () => {
  it("deletes the session row and redirects to /login", async () => {
    const user = await createUser({ roles: ["user"] });
    const cookie = await sessionCookieFor(user.id);
    const out = await run(() => logoutAction(args(request("/logout", { method: "POST", cookie }))));
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/login");
    expect(await db().selectFrom("session").selectAll().where("user_id", "=", user.id).execute()).toEqual([]);
  });
});
