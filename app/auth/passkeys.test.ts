import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { args, context, PASSWORD, run, sessionCookieFor, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { SoftAuthenticator } from "../../test/support/webauthn";
import { db } from "../db.server";
import { env, resetEnvCache } from "../env.server";
import { english } from "../i18n/english.server";
import type { Message } from "../i18n/message";
import {
  action as settingsAction,
  loader as settingsLoader,
} from "../routes/dashboard.settings.security/route";
import { loader as loginLoader } from "../routes/login/route";
import { action as passkeyAction } from "../routes/login.passkey";
import { resetRateLimits } from "../security/rate-limit.server";
import { DISABLED, UNVERIFIED } from "./login.server";
import { hasPasskey, PASSKEY_FAILED, relyingParty } from "./passkeys.server";
import { getSessionUser } from "./session.server";

// Passkeys end to end through the two route actions (Settings intents, /login/passkey), with a
// software authenticator producing real attestations and assertions (test/support/webauthn.ts).

// "View as": the session layer reports an impersonator while `imp.on` (the real one arrives with
// the impersonation feature; the guard reads only this field).
const imp = vi.hoisted(() => ({ on: false }));
vi.mock("./session.server", async (importOriginal) => {
  const mod = await importOriginal<typeof import("./session.server")>();
  return {
    ...mod,
    getSessionUser: async (...a: Parameters<typeof mod.getSessionUser>) => {
      const user = await mod.getSessionUser(...a);
      return user && imp.on
        ? { ...user, impersonator: { id: "someone", email: "admin@example.test" } }
        : user;
    },
  };
});

beforeAll(setupDatabase);
beforeEach(async () => {
  imp.on = false;
  await resetRateLimits();
});

let ipCount = 0;
const nextIp = () => `198.51.100.${++ipCount % 250}`;

type Body = {
  ok?: boolean;
  options?: { challenge: string; rp?: { id: string }; allowCredentials?: unknown[] };
  redirectTo?: string;
  formError?: string;
  errors?: Record<string, string>;
  message?: string;
};

async function settings(cookie: string, fields: Record<string, string | undefined>) {
  const out = await run(() =>
    settingsAction(args(formRequest("/dashboard/settings/security", fields, { cookie }))),
  );
  return { ...out, body: out.body as Body };
}

async function passkeyPost(fields: Record<string, string | undefined>, ip = nextIp()) {
  const out = await run(() => passkeyAction(args(formRequest("/login/passkey", fields), {}, context(ip))));
  return { ...out, body: out.body as Body };
}

const rp = () => relyingParty();
const ceremony = (
  challenge: string,
  over: Partial<{ origin: string; rpId: string; userVerified: boolean; crossOrigin: boolean }> = {},
) => ({
  challenge,
  origin: rp().origin,
  rpId: rp().id,
  ...over,
});

async function registrationChallenge(cookie: string) {
  const out = await settings(cookie, { intent: "passkey-options", currentPassword: PASSWORD });
  expect(out.status).toBe(200);
  return out.body.options!.challenge;
}

/** Registers a fresh software passkey for the signed-in user; returns it. */
async function registered(cookie: string, name = "Laptop") {
  const key = new SoftAuthenticator();
  const challenge = await registrationChallenge(cookie);
  const out = await settings(cookie, {
    intent: "passkey-add",
    name,
    response: JSON.stringify(key.register(ceremony(challenge))),
  });
  expect(out.status, JSON.stringify(out.body)).toBe(200);
  return key;
}

async function signInChallenge(ip?: string) {
  const out = await passkeyPost({}, ip);
  expect(out.status).toBe(200);
  return out.body.options!.challenge;
}

const passkeysOf = (userId: string) =>
  db().selectFrom("passkey").selectAll().where("user_id", "=", userId).orderBy("created_at").execute();
const sessionsOf = (userId: string) =>
  db().selectFrom("session").select("id").where("user_id", "=", userId).execute();
const auditOf = (action: string) =>
  db().selectFrom("audit_log").selectAll().where("action", "=", action).orderBy("created_at").execute();

/** What a refusal must leave as it was: passkeys, accounts, sessions. */
async function state() {
  const [passkeys, users, sessions] = await Promise.all([
    db().selectFrom("passkey").selectAll().orderBy("id").execute(),
    db().selectFrom("user").selectAll().orderBy("id").execute(),
    db().selectFrom("session").select(["id", "user_id"]).orderBy("id").execute(),
  ]);
  return JSON.stringify({ passkeys, users, sessions });
}

describe("registering a passkey in Settings", () => {
  it("stores the credential (id, public key, counter, transports), audits, and lists it", async () => {
    const me = await signedIn(["user"]);
    expect(await hasPasskey(me.id)).toBe(false);
    const challenge = await registrationChallenge(me.cookie);
    const key = new SoftAuthenticator();
    const out = await settings(me.cookie, {
      intent: "passkey-add",
      name: "Work laptop",
      response: JSON.stringify(key.register(ceremony(challenge))),
    });
    expect(out.status).toBe(200);
    expect(out.body.message).toContain("Work laptop");
    const [row] = await passkeysOf(me.id);
    expect(row).toMatchObject({
      credential_id: key.credentialId,
      name: "Work laptop",
      transports: "internal",
      last_used_at: null,
    });
    expect(Number(row!.counter)).toBe(0);
    expect(row!.public_key.length).toBeGreaterThan(50);
    expect(await hasPasskey(me.id)).toBe(true);
    expect(
      await db().selectFrom("passkey_challenge").selectAll().where("challenge", "=", challenge).execute(),
    ).toEqual([]);
    const audited = (await auditOf("account.passkey.add")).filter((a) => a.actor_id === me.id);
    expect(audited).toHaveLength(1);
    const page = await run(() =>
      settingsLoader(args(formRequest("/dashboard/settings/security", {}, { cookie: me.cookie }))),
    );
    const data = page.body as { passkeys: { name: string; lastUsedAt: string | null }[] };
    expect(data.passkeys).toEqual([expect.objectContaining({ name: "Work laptop", lastUsedAt: null })]);
    // Its options name the RP from BASE_URL and exclude the passkeys already there.
    const again = await settings(me.cookie, { intent: "passkey-options", currentPassword: PASSWORD });
    expect(again.body.options).toMatchObject({
      rp: { id: rp().id },
      excludeCredentials: [expect.objectContaining({ id: key.credentialId })],
      authenticatorSelection: expect.objectContaining({
        residentKey: "required",
        userVerification: "required",
      }),
    });
  });

  it.each([
    ["a challenge already used", "reused"],
    ["an expired challenge", "expired"],
    ["another account's challenge", "foreign"],
    ["a challenge never issued", "made-up"],
    ["the wrong origin", "origin"],
    ["the wrong RP ID", "rpid"],
    ["no user verification", "uv"],
    ["a ceremony in another site's frame (crossOrigin: true)", "cross-origin"],
    ["an unreadable answer", "garbage"],
  ])("refuses %s, storing nothing", async (_label, kind) => {
    const me = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    let challenge = await registrationChallenge(me.cookie);
    if (kind === "reused") {
      // Spend a challenge with a first passkey, then offer it again for a second one.
      const first = new SoftAuthenticator();
      challenge = await registrationChallenge(me.cookie);
      await settings(me.cookie, {
        intent: "passkey-add",
        name: "First",
        response: JSON.stringify(first.register(ceremony(challenge))),
      });
    }
    if (kind === "expired")
      await db()
        .updateTable("passkey_challenge")
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("challenge", "=", challenge)
        .execute();
    if (kind === "foreign") challenge = await registrationChallenge(other.cookie);
    if (kind === "made-up") challenge = "bm90LWlzc3VlZC1ieS10aGUtc2VydmVyLWF0LWFsbA";
    const over =
      kind === "origin"
        ? { origin: "https://evil.example" }
        : kind === "rpid"
          ? { rpId: "evil.example" }
          : kind === "uv"
            ? { userVerified: false }
            : kind === "cross-origin"
              ? { crossOrigin: true }
              : {};
    const key = new SoftAuthenticator();
    const response =
      kind === "garbage" ? "{not json" : JSON.stringify(key.register(ceremony(challenge, over)));
    const before = await state();
    const out = await settings(me.cookie, { intent: "passkey-add", name: "Second", response });
    expect(out.status).toBe(400);
    expect(out.body.errors?.form).toBeTruthy();
    expect(await state()).toEqual(before);
    expect((await passkeysOf(me.id)).map((p) => p.credential_id)).not.toContain(key.credentialId);
  });

  it("refuses a challenge offered a second time after a failed attempt (single use)", async () => {
    const me = await signedIn(["user"]);
    const challenge = await registrationChallenge(me.cookie);
    const key = new SoftAuthenticator();
    const bad = await settings(me.cookie, {
      intent: "passkey-add",
      name: "X",
      response: JSON.stringify(key.register(ceremony(challenge, { origin: "https://evil.example" }))),
    });
    expect(bad.status).toBe(400);
    const retry = await settings(me.cookie, {
      intent: "passkey-add",
      name: "X",
      response: JSON.stringify(key.register(ceremony(challenge))),
    });
    expect(retry.status).toBe(400);
    expect(await passkeysOf(me.id)).toEqual([]);
  });

  it("refuses a credential already registered (to anyone)", async () => {
    const me = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    const key = await registered(me.cookie);
    const challenge = await registrationChallenge(other.cookie);
    const before = await state();
    const out = await settings(other.cookie, {
      intent: "passkey-add",
      name: "Stolen",
      response: JSON.stringify(key.register(ceremony(challenge))),
    });
    expect(out.status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("renames and removes the account's own passkey, audited", async () => {
    const me = await signedIn(["user"]);
    await registered(me.cookie, "Old name");
    const [row] = await passkeysOf(me.id);
    const renamed = await settings(me.cookie, { intent: "passkey-rename", id: row!.id, name: "Phone" });
    expect(renamed.status).toBe(200);
    expect((await passkeysOf(me.id))[0]!.name).toBe("Phone");
    const removed = await settings(me.cookie, { intent: "passkey-remove", id: row!.id });
    expect(removed.status).toBe(200);
    expect(await passkeysOf(me.id)).toEqual([]);
    expect(await hasPasskey(me.id)).toBe(false);
    expect((await auditOf("account.passkey.rename")).some((a) => a.actor_id === me.id)).toBe(true);
    expect((await auditOf("account.passkey.remove")).some((a) => a.actor_id === me.id)).toBe(true);
  });

  it("refuses to rename or remove another account's passkey (404), changing nothing", async () => {
    const owner = await signedIn(["user"]);
    const intruder = await signedIn(["super_admin"]);
    await registered(owner.cookie);
    const [row] = await passkeysOf(owner.id);
    const before = await state();
    const audits = (await db().selectFrom("audit_log").select("id").execute()).length;
    for (const fields of [
      { intent: "passkey-remove", id: row!.id },
      { intent: "passkey-rename", id: row!.id, name: "Mine now" },
      { intent: "passkey-remove", id: "no-such-passkey" },
    ]) {
      const out = await settings(intruder.cookie, fields);
      expect(out.status).toBe(404);
    }
    expect(await state()).toEqual(before);
    expect((await db().selectFrom("audit_log").select("id").execute()).length).toBe(audits);
  });

  it("refuses every passkey change while viewing as the account (403), changing nothing", async () => {
    const me = await signedIn(["user"]);
    await registered(me.cookie);
    const [row] = await passkeysOf(me.id);
    const key = new SoftAuthenticator();
    const challenge = await registrationChallenge(me.cookie);
    imp.on = true;
    const before = await state();
    const challenges = await db().selectFrom("passkey_challenge").selectAll().execute();
    for (const fields of [
      { intent: "passkey-options", currentPassword: PASSWORD },
      { intent: "passkey-add", name: "Sneaky", response: JSON.stringify(key.register(ceremony(challenge))) },
      { intent: "passkey-rename", id: row!.id, name: "Renamed" },
      { intent: "passkey-remove", id: row!.id },
    ]) {
      const out = await settings(me.cookie, fields);
      expect(out.status, fields.intent).toBe(403);
    }
    expect(await state()).toEqual(before);
    expect(await db().selectFrom("passkey_challenge").selectAll().execute()).toEqual(challenges);
  });

  it.each([
    ["a wrong password", "not the password"],
    ["no password", undefined],
    ["an empty password", ""],
  ])("refuses the options with %s: no challenge issued, nothing stored", async (label, currentPassword) => {
    const me = await signedIn(["user"]);
    const before = await state();
    const challenges = await db().selectFrom("passkey_challenge").selectAll().execute();
    const failedBefore = (await auditOf("account.reauth.failed")).filter((a) => a.actor_id === me.id);
    const out = await settings(me.cookie, { intent: "passkey-options", currentPassword });
    expect(out.status, label).toBe(400);
    expect(out.body.options).toBeUndefined();
    expect(out.body.errors?.currentPassword).toBeTruthy();
    expect(await state()).toEqual(before);
    expect(await db().selectFrom("passkey_challenge").selectAll().execute()).toEqual(challenges);
    const failed = (await auditOf("account.reauth.failed")).filter((a) => a.actor_id === me.id);
    // A wrong password is audited (as two-factor-disable's is); a missing one never reaches the check.
    expect(failed.length - failedBefore.length).toBe(currentPassword ? 1 : 0);
    if (currentPassword)
      expect(JSON.parse(failed.at(-1)!.details!)).toMatchObject({ purpose: "passkey-add" });
  });

  // docs/rules.md, "Re-authentication": an account without a password (single sign-on) and without two-factor
  // re-authenticates by a recent sign-in (assertReauthenticated), no longer refused outright.
  it("an account without a password (single sign-on) gets a challenge only within 10 minutes of signing in", async () => {
    const me = await signedIn(["user"]);
    await db().updateTable("user").set({ password_hash: null }).where("id", "=", me.id).execute();
    const challenges = await db().selectFrom("passkey_challenge").selectAll().execute();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11 * 60 * 1000);
    try {
      const out = await settings(me.cookie, { intent: "passkey-options", currentPassword: PASSWORD });
      expect(out.status).toBe(403);
      expect(await db().selectFrom("passkey_challenge").selectAll().execute()).toEqual(challenges);
      expect((await auditOf("account.reauth.failed")).filter((a) => a.actor_id === me.id)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
    const fresh = await settings(await sessionCookieFor(me.id), { intent: "passkey-options" });
    expect(fresh.status).toBe(200);
    expect(await hasPasskey(me.id)).toBe(false);
  });

  it("refuses without a session", async () => {
    const out = await run(() =>
      settingsAction(
        args(
          formRequest("/dashboard/settings/security", {
            intent: "passkey-options",
            currentPassword: PASSWORD,
          }),
        ),
      ),
    );
    expect([302, 401]).toContain(out.status);
  });
});

describe("signing in with a passkey", () => {
  it("signs in (two factors), moves the counter and last use, audits, and starts a session", async () => {
    const me = await signedIn(["user"]);
    const key = await registered(me.cookie);
    const sessions = (await sessionsOf(me.id)).length;
    const options = await passkeyPost({});
    expect(options.body.options).toMatchObject({ rpId: rp().id, userVerification: "required" });
    // Discoverable credentials: the options name no account and no credential.
    expect(options.body.options!.allowCredentials ?? []).toEqual([]);
    const out = await passkeyPost({
      response: JSON.stringify(key.assert(ceremony(options.body.options!.challenge))),
      redirectTo: "/dashboard/settings",
    });
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(out.body).toEqual({ ok: true, redirectTo: "/dashboard/settings" });
    const cookie = out.headers.get("Set-Cookie")!.split(";")[0]!;
    const user = await getSessionUser({ request: formRequest("/", {}, { cookie }), context: context() });
    expect(user?.id).toBe(me.id);
    expect(await sessionsOf(me.id)).toHaveLength(sessions + 1);
    const [row] = await passkeysOf(me.id);
    expect(Number(row!.counter)).toBe(1);
    expect(row!.last_used_at).not.toBeNull();
    const audited = (await auditOf("auth.login.succeeded")).filter((a) => a.actor_id === me.id);
    expect(JSON.parse(audited.at(-1)!.details!)).toMatchObject({ method: "passkey" });
  });

  it("keeps only a safe redirect", async () => {
    const me = await signedIn(["user"]);
    const key = await registered(me.cookie);
    const challenge = await signInChallenge();
    const out = await passkeyPost({
      response: JSON.stringify(key.assert(ceremony(challenge))),
      redirectTo: "//evil.example/x",
    });
    expect(out.status).toBe(200);
    expect(out.body.redirectTo).toMatch(/^\/(?!\/)/);
  });

  type Case = [string, string, Message];
  it.each<Case>([
    ["an unknown credential", "unknown", PASSKEY_FAILED],
    ["a reused challenge (replayed answer)", "replay", PASSKEY_FAILED],
    ["an expired challenge", "expired", PASSKEY_FAILED],
    ["a registration challenge", "wrong-purpose", PASSKEY_FAILED],
    ["the wrong origin", "origin", PASSKEY_FAILED],
    ["the wrong RP ID", "rpid", PASSKEY_FAILED],
    ["no user verification", "uv", PASSKEY_FAILED],
    ["a counter that did not move", "counter", PASSKEY_FAILED],
    ["a ceremony in another site's frame (crossOrigin: true)", "cross-origin", PASSKEY_FAILED],
    ["a disabled account", "disabled", DISABLED],
    ["an unverified account", "unverified", UNVERIFIED],
    ["an unreadable answer", "garbage", PASSKEY_FAILED],
  ])("refuses %s: 400, no session, counter unchanged, audited", async (_label, kind, message) => {
    const me = await signedIn(["user"]);
    let key = await registered(me.cookie);
    let challenge = await signInChallenge();
    if (kind === "replay") {
      const answer = JSON.stringify(key.assert(ceremony(challenge)));
      expect((await passkeyPost({ response: answer })).status).toBe(200);
      const before = await state();
      const again = await passkeyPost({ response: answer });
      expect(again.status).toBe(400);
      expect(again.body.formError).toBe(english(message));
      expect(await state()).toEqual(before);
      return;
    }
    if (kind === "unknown") key = new SoftAuthenticator();
    if (kind === "expired")
      await db()
        .updateTable("passkey_challenge")
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("challenge", "=", challenge)
        .execute();
    if (kind === "wrong-purpose") challenge = await registrationChallenge(me.cookie);
    if (kind === "counter") {
      expect((await passkeyPost({ response: JSON.stringify(key.assert(ceremony(challenge))) })).status).toBe(
        200,
      );
      challenge = await signInChallenge();
    }
    if (kind === "disabled")
      await db().updateTable("user").set({ status: "disabled" }).where("id", "=", me.id).execute();
    if (kind === "unverified")
      await db().updateTable("user").set({ email_verified: 0 }).where("id", "=", me.id).execute();
    const over =
      kind === "origin"
        ? { origin: "https://evil.example" }
        : kind === "rpid"
          ? { rpId: "evil.example" }
          : kind === "uv"
            ? { userVerified: false }
            : kind === "counter"
              ? { counter: key.counter }
              : kind === "cross-origin"
                ? { crossOrigin: true }
                : {};
    const response = kind === "garbage" ? "[]" : JSON.stringify(key.assert({ ...ceremony(challenge, over) }));
    const before = await state();
    const failures = (await auditOf("auth.login.failed")).length;
    const out = await passkeyPost({ response });
    expect(out.status).toBe(400);
    expect(out.body.formError).toBe(english(message));
    expect(out.headers.get("Set-Cookie")).toBeNull();
    expect(await state()).toEqual(before);
    const failed = await auditOf("auth.login.failed");
    expect(failed).toHaveLength(failures + 1);
    expect(JSON.parse(failed.at(-1)!.details!)).toMatchObject({ method: "passkey" });
  });

  it("rate-limits the endpoint per address with Retry-After, audited, changing nothing", async () => {
    const budget = env().RATE_LIMIT_LOGIN_PER_IP * 3;
    const ip = "203.0.113.99";
    for (let i = 0; i < budget; i++) expect((await passkeyPost({}, ip)).status).toBe(200);
    const me = await signedIn(["user"]);
    const key = await registered(me.cookie);
    const challenge = await signInChallenge();
    const before = await state();
    for (const fields of [{}, { response: JSON.stringify(key.assert(ceremony(challenge))) }]) {
      const out = await passkeyPost(fields, ip);
      expect(out.status).toBe(429);
      expect(Number(out.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    expect(await state()).toEqual(before);
    const limited = await auditOf("auth.login.rate_limited");
    expect(JSON.parse(limited.at(-1)!.details!)).toMatchObject({ method: "passkey", scope: "ip" });
    // Another address is unaffected.
    expect((await passkeyPost({})).status).toBe(200);
  });
});

describe("where passkeys cannot work, they are not offered", () => {
  const original = process.env.BASE_URL;
  afterEach(() => {
    if (original === undefined) delete process.env.BASE_URL;
    else process.env.BASE_URL = original;
    resetEnvCache();
  });
  function at(baseUrl: string | undefined) {
    if (baseUrl === undefined) delete process.env.BASE_URL;
    else process.env.BASE_URL = baseUrl;
    resetEnvCache();
  }
  const loginPage = async (url: string) =>
    (await run(() => loginLoader(args(new Request(url))))).body as { passkeys: boolean };
  const settingsPage = async (url: string, cookie: string) =>
    (await run(() => settingsLoader(args(new Request(url, { headers: { Cookie: cookie } }))))).body as {
      passkeyAvailability: { available: boolean; reason?: string; origin?: string };
    };

  it.each([
    ["http://127.0.0.1:3000", "http://127.0.0.1:3000/login"],
    ["http://10.0.0.5:3000", "http://10.0.0.5:3000/login"],
    ["http://[::1]:3000", "http://[::1]:3000/login"],
    // The configured name, but the page opened by its address.
    ["http://localhost:3000", "http://127.0.0.1:3000/login"],
  ])("BASE_URL %s, page %s: no passkey on the sign-in page", async (base, page) => {
    at(base);
    expect((await loginPage(page)).passkeys).toBe(false);
  });

  it("a page opened at another name than BASE_URL's offers none; the configured one does", async () => {
    at("http://dash.example.test:3000");
    expect((await loginPage("http://other.example.test:3000/login")).passkeys).toBe(false);
    expect((await loginPage("http://dash.example.test:3000/login")).passkeys).toBe(true);
    at("http://localhost:3000");
    expect((await loginPage("http://localhost:3000/login")).passkeys).toBe(true);
  });

  it("Settings says why passkeys are unavailable at this address", async () => {
    const me = await signedIn(["user"]);
    at("http://127.0.0.1:3000");
    expect(
      (await settingsPage("http://127.0.0.1:3000/dashboard/settings/security", me.cookie))
        .passkeyAvailability,
    ).toEqual({ available: false, reason: "ip-address", origin: "http://127.0.0.1:3000" });
    at("http://dash.example.test");
    expect(
      (await settingsPage("http://other.example.test/dashboard/settings/security", me.cookie))
        .passkeyAvailability,
    ).toEqual({ available: false, reason: "other-origin", origin: "http://dash.example.test" });
    at("http://localhost:3000");
    expect(
      (await settingsPage("http://localhost:3000/dashboard/settings/security", me.cookie))
        .passkeyAvailability,
    ).toEqual({ available: true });
  });
});
