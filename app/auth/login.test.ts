import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  args,
  context,
  createUser,
  form,
  PASSWORD,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
} from "../../test/helpers";
import { db } from "../db.server";
import { action as loginAction } from "../routes/login";
import { action as logoutAction } from "../routes/logout";
import { resetRateLimits } from "../security/rate-limit.server";
import { BAD_CREDENTIALS } from "./login.server";

beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

let ipCounter = 0;
function login(values: Record<string, string>, opts: { ip?: string; cookie?: string } = {}) {
  const req = request("/login", {
    method: "POST",
    body: form(values),
    cookie: opts.cookie,
    headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": "vitest" },
  });
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
    expect(wrong).toMatchObject({ status: 400, body: { formError: BAD_CREDENTIALS } });
    expect(unknown).toMatchObject({ status: 400, body: { formError: BAD_CREDENTIALS } });
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

  it("locks an account after 5 failures in 15 minutes, whatever the IP", async () => {
    const user = await createUser({ roles: ["user"] });
    for (let i = 0; i < 5; i++)
      expect((await login({ email: user.email, password: "bad" })).status).toBe(400);
    const locked = await login({ email: user.email, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.headers.get("Retry-After")).toBeTruthy();
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
