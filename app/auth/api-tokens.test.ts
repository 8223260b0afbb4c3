import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import {
  args,
  context,
  createUser,
  ORIGIN,
  PASSWORD,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { listen, rawGet, wholeBody } from "../../test/support/sse";
import { db, now } from "../db.server";
import { resetEnvCache } from "../env.server";
import { action as userPageAction } from "../routes/dashboard.users.$id/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { runApiTokensIntent } from "../settings/account-settings.server";
import { createApiToken, hashApiToken, LAST_USED_EVERY_MS } from "./api-tokens.server";
import { authContext, getSessionUser, type SessionUser } from "./session.server";

// Personal API tokens (docs/decisions/022-personal-api-tokens.md): created in Settings, shown once,
// stored hashed; `Authorization: Bearer` on /api/* in place of the cookie, with the token's
// permissions intersected with the owner's current ones. Every refusal leaves the database as it was.

const LIMIT = 12;
process.env.RATE_LIMIT_API_TOKEN_PER_MINUTE = String(LIMIT);
resetEnvCache();

let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  // No task runs: POST /api/tasks only has to be accepted.
  const runner = await app.module<typeof import("../tasks/runner.server")>("app/tasks/runner.server.ts");
  runner.setTaskRunner({ dispatch() {}, async start() {}, async stop() {} });
});
afterAll(() => app?.close());
beforeEach(() => resetRateLimits());

const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

/**
 * Everything a refusal must leave alone: tokens, audit rows, tasks. A token's last use is
 * bookkeeping of the request itself (like the rate-limit counters), so it is left out.
 */
async function snapshot() {
  const [tokens, audit, tasks] = await Promise.all([
    db().selectFrom("api_token").selectAll().orderBy("id").execute(),
    db().selectFrom("audit_log").select("id").orderBy("id").execute(),
    db().selectFrom("task").select("id").orderBy("id").execute(),
  ]);
  return { tokens: tokens.map(({ last_used_at, ...t }) => t), audit: audit.length, tasks: tasks.length };
}

/** Settings → API tokens' action as `cookie`'s user, optionally as a super admin viewing as them. */
async function settings(
  cookie: string,
  fields: [string, string][],
  impersonator?: SessionUser["impersonator"],
) {
  const req = request("/dashboard/settings/api-tokens", {
    method: "POST",
    cookie,
    headers: FORM,
    body: new URLSearchParams(fields).toString(),
  });
  const ctx = context();
  if (impersonator) {
    const user = await getSessionUser({ request: req, context: ctx });
    ctx.set(authContext, { user: { ...user!, impersonator }, renewCookie: null });
  }
  return run(() => runApiTokensIntent(args(req, {}, ctx)));
}

/** The create form's fields; the current password is asked again (null leaves the field out). */
const createFields = (
  name: string,
  permissions: string[],
  days = "90",
  currentPassword: string | null = PASSWORD,
): [string, string][] => [
  ["intent", "create-api-token"],
  ["name", name],
  ["expiresInDays", days],
  ...permissions.map((p): [string, string] => ["permissions", p]),
  ...(currentPassword === null ? [] : [["currentPassword", currentPassword] as [string, string]]),
];

/** A token for `userId` straight through the domain (the Settings form is tested on its own). */
async function tokenFor(userId: string, permissions: string[], days = 30) {
  const user = await db()
    .selectFrom("user")
    .select(["id", "email"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const actor = { ...user, isSuperAdmin: true, permissions: new Set<string>() };
  const { id, secret } = await createApiToken(
    actor,
    { name: "script", expiresInDays: days, permissions },
    {
      request: request("/"),
    },
  );
  return { id, secret };
}

/** A request with no cookie and no browser headers at all: only the bearer header. */
function bearer(
  path: string,
  secret: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${secret}`);
  if (init.body) headers.set("Content-Type", "application/json");
  return app.handle(new Request(ORIGIN + path, { method: init.method ?? "GET", headers, body: init.body }));
}

const newTask = JSON.stringify({ type: "report.generate", payload: { durationMs: 10 } });

describe("creating a token in Settings", () => {
  it("shows the dash_ secret once, stores only its SHA-256, audits without the secret", async () => {
    const me = await signedIn(["user"]);
    const out = await settings(me.cookie, createFields("CI deploy", ["dashboard.access"]));
    expect(out.status).toBe(200);
    const { secret } = out.body as { secret: string };
    expect(secret).toMatch(/^dash_[A-Za-z0-9_-]{43}$/);
    const row = await db()
      .selectFrom("api_token")
      .selectAll()
      .where("user_id", "=", me.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashApiToken(secret));
    expect(JSON.stringify(row)).not.toContain(secret.slice(5));
    expect(JSON.parse(row.permissions)).toEqual(["dashboard.access"]);
    const days = (Date.parse(row.expires_at) - Date.parse(row.created_at)) / 86_400_000;
    expect(days).toBe(90);
    const audit = await db().selectFrom("audit_log").selectAll().where("target_id", "=", row.id).execute();
    expect(audit).toMatchObject([{ action: "account.api_token.create", actor_id: me.id }]);
    expect(JSON.stringify(audit)).not.toContain(secret.slice(5));

    // The page lists it without the secret or its hash.
    const page = await app.fetch(
      "/dashboard/settings/api-tokens.data?_routes=routes%2Fdashboard.settings.api-tokens",
      {
        cookie: me.cookie,
      },
    );
    const text = await page.text();
    expect(text).toContain("CI deploy");
    expect(text).not.toContain(secret.slice(5));
    expect(text).not.toContain(row.token_hash);
  });

  it("refuses a permission the user lacks (400), an unknown one, none, and more than a year", async () => {
    const me = await signedIn(["user"]);
    const before = await snapshot();
    for (const fields of [
      createFields("x", ["dashboard.access", "user.update"]),
      createFields("x", ["no.such.permission"]),
      createFields("x", []),
      createFields("x", ["dashboard.access"], "366"),
      createFields("x", ["dashboard.access"], "0"),
      createFields("", ["dashboard.access"]),
    ]) {
      const out = await settings(me.cookie, fields);
      expect(out.status, JSON.stringify(fields)).toBe(400);
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ["a wrong password", "not the password"],
    ["no password", null],
    ["an empty password", ""],
  ])("refuses %s (400 on the field): no token created", async (label, currentPassword) => {
    const me = await signedIn(["user"]);
    const failed = () =>
      db()
        .selectFrom("audit_log")
        .selectAll()
        .where("action", "=", "account.reauth.failed")
        .where("actor_id", "=", me.id)
        .execute();
    const before = await snapshot();
    const out = await settings(me.cookie, createFields("x", ["dashboard.access"], "90", currentPassword));
    expect(out.status, label).toBe(400);
    const body = out.body as { errors: Record<string, string>; secret?: string };
    expect(body.errors.currentPassword).toBeTruthy();
    expect(body.secret).toBeUndefined();
    const after = await snapshot();
    expect(after.tokens).toEqual(before.tokens);
    expect(after.tasks).toBe(before.tasks);
    // A wrong password is audited (as two-factor-disable's is); a missing one never reaches the check.
    const audited = await failed();
    expect(audited).toHaveLength(currentPassword ? 1 : 0);
    expect(after.audit - before.audit).toBe(currentPassword ? 1 : 0);
    if (currentPassword)
      expect(JSON.parse(audited[0]!.details!)).toMatchObject({ purpose: "create-api-token" });
  });

  // docs/rules.md, "Re-authentication": an account without a password (single sign-on) and without two-factor
  // re-authenticates by a recent sign-in (assertReauthenticated), no longer refused outright.
  it("an account without a password (single sign-on) needs a sign-in within 10 minutes", async () => {
    const me = await signedIn(["user"]);
    await db().updateTable("user").set({ password_hash: null }).where("id", "=", me.id).execute();
    const before = await snapshot();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11 * 60 * 1000);
    try {
      const stale = await settings(me.cookie, createFields("x", ["dashboard.access"]));
      expect(stale.status).toBe(403);
      expect((await snapshot()).tokens).toEqual(before.tokens);
    } finally {
      vi.useRealTimers();
    }
    const fresh = await settings(await sessionCookieFor(me.id), createFields("x", ["dashboard.access"]));
    expect(fresh.status).toBe(200);
  });

  it("is refused while a super admin views as the user, and revoking too; nothing changes", async () => {
    const me = await signedIn(["user"]);
    const { id } = await tokenFor(me.id, ["dashboard.access"]);
    const before = await snapshot();
    const viewer = { id: "00000000-0000-4000-8000-000000000000", email: "root@example.test" };
    const create = await settings(me.cookie, createFields("x", ["dashboard.access"]), viewer);
    expect(create.status).toBe(403);
    const revoke = await settings(
      me.cookie,
      [
        ["intent", "revoke-api-token"],
        ["apiToken", id],
      ],
      viewer,
    );
    expect(revoke.status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("can not be reached with a token: page actions ignore the bearer header", async () => {
    const me = await signedIn(["user"]);
    const { secret } = await tokenFor(me.id, ["dashboard.access"]);
    const before = await snapshot();
    for (const path of ["/dashboard/settings/api-tokens", "/dashboard/settings/api-tokens.data"]) {
      const res = await app.handle(
        new Request(ORIGIN + path, {
          method: "POST",
          headers: { Authorization: `Bearer ${secret}`, ...FORM },
          body: new URLSearchParams(createFields("escalate", ["dashboard.access"])).toString(),
        }),
      );
      const seen = `${res.status} ${res.headers.get("Location") ?? res.headers.get("X-Remix-Redirect") ?? ""} ${await res.text()}`;
      expect(seen, path).toContain("/login");
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("Authorization: Bearer on /api/*", () => {
  it("lists and creates tasks without a cookie and without CSRF headers", async () => {
    const me = await createUser({ roles: ["user"] });
    const { secret } = await tokenFor(me.id, ["dashboard.access"]);
    const list = await bearer("/api/tasks", secret);
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ tasks: [] });
    const created = await bearer("/api/tasks", secret, { method: "POST", body: newTask });
    expect(created.status).toBe(202);
    const { taskId } = (await created.json()) as { taskId: string };
    const task = await db()
      .selectFrom("task")
      .select("user_id")
      .where("id", "=", taskId)
      .executeTakeFirstOrThrow();
    expect(task.user_id).toBe(me.id);
    const one = await bearer(`/api/tasks/${taskId}`, secret);
    expect(one.status).toBe(200);
  });

  it("skips the CSRF check only without a cookie: a cross-site POST with a cookie is still refused", async () => {
    const me = await signedIn(["user"]);
    const { secret } = await tokenFor(me.id, ["dashboard.access"]);
    const crossSite = { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" };
    const alone = await bearer("/api/tasks", secret, { method: "POST", body: newTask, headers: crossSite });
    expect(alone.status).toBe(202);
    const before = await snapshot();
    const withCookie = await bearer("/api/tasks", secret, {
      method: "POST",
      body: newTask,
      headers: { ...crossSite, Cookie: me.cookie },
    });
    expect(withCookie.status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("answers 401 unauthorized for unknown, malformed, revoked and expired tokens, never falling back to the cookie", async () => {
    const me = await signedIn(["user"]);
    const revoked = await tokenFor(me.id, ["dashboard.access"]);
    await db().updateTable("api_token").set({ revoked_at: now() }).where("id", "=", revoked.id).execute();
    const expired = await tokenFor(me.id, ["dashboard.access"]);
    await db()
      .updateTable("api_token")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", expired.id)
      .execute();
    const unknown = `dash_${"A".repeat(43)}`;
    const before = await snapshot();
    for (const value of [
      `Bearer ${unknown}`,
      `Bearer ${revoked.secret}`,
      `Bearer ${expired.secret}`,
      "Bearer dash_short",
      "Bearer not-a-token",
      "Bearer ",
      `Basic ${Buffer.from("a:b").toString("base64")}`,
    ]) {
      for (const [method, body] of [
        ["GET", undefined],
        ["POST", newTask],
      ] as const) {
        const res = await app.handle(
          new Request(`${ORIGIN}/api/tasks`, {
            method,
            body,
            // A valid session cookie alongside: a bad token is never swapped for it.
            headers: {
              Authorization: value,
              Cookie: me.cookie,
              "Sec-Fetch-Site": "same-origin",
              Origin: ORIGIN,
            },
          }),
        );
        expect(res.status, `${method} ${value}`).toBe(401);
        expect(await res.json()).toEqual({ error: "unauthorized" });
      }
    }
    // Also on routes any visitor may call and on the event stream.
    expect((await bearer("/api/ping", unknown)).status).toBe(401);
    expect((await bearer("/api/events", unknown)).status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it("answers 403 for a permission the token lacks, though its owner holds it", async () => {
    const me = await createUser({ roles: ["user", "admin"] });
    const { secret } = await tokenFor(me.id, ["dashboard.access"]);
    const noAccess = await tokenFor(me.id, ["settings.manage"]);
    const root = await createUser({ roles: ["super_admin"] });
    const rootToken = await tokenFor(root.id, ["dashboard.access", "settings.manage"]);
    const before = await snapshot();
    const res = await bearer("/api/mail", secret, {
      method: "POST",
      body: JSON.stringify({ to: "x@example.test" }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "forbidden", permission: "settings.manage" });
    // Without dashboard.access the gate refuses every gated endpoint.
    expect((await bearer("/api/tasks", noAccess.secret)).status).toBe(403);
    expect((await bearer("/api/tasks", noAccess.secret, { method: "POST", body: newTask })).status).toBe(403);
    // A super admin's token never carries super_admin itself.
    expect((await bearer("/api/access/sync", rootToken.secret, { method: "POST" })).status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("shrinks at once when the owner loses a role, and is refused once the owner is disabled", async () => {
    const me = await createUser({ roles: ["user", "admin"] });
    const { secret } = await tokenFor(me.id, ["dashboard.access", "settings.manage"]);
    const badAddress = JSON.stringify({ to: "not an address" });
    // settings.manage held: past the permission check to the body's validation.
    expect((await bearer("/api/mail", secret, { method: "POST", body: badAddress })).status).toBe(400);
    const admin = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    await db().deleteFrom("user_role").where("user_id", "=", me.id).where("role_id", "=", admin.id).execute();
    expect((await bearer("/api/mail", secret, { method: "POST", body: badAddress })).status).toBe(403);
    expect((await bearer("/api/tasks", secret)).status).toBe(200);
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", me.id).execute();
    expect((await bearer("/api/tasks", secret)).status).toBe(401);
  });

  it("is held by a role's two-factor requirement like the session: 403 until the owner enrols", async () => {
    const me = await createUser({ roles: ["user"] });
    const { secret } = await tokenFor(me.id, ["dashboard.access"]);
    expect((await bearer("/api/tasks", secret)).status).toBe(200);
    const role = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "user")
      .executeTakeFirstOrThrow();
    await db()
      .insertInto("two_factor_required_role")
      .values({ role_id: role.id, created_at: new Date().toISOString() })
      .execute();
    try {
      const before = await snapshot();
      const res = await bearer("/api/tasks", secret, { method: "POST", body: newTask });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: "two_factor_enrolment_required" });
      expect(await snapshot()).toEqual(before);
    } finally {
      await db().deleteFrom("two_factor_required_role").where("role_id", "=", role.id).execute();
    }
  });

  it("opens the event stream until the token expires", async () => {
    const me = await createUser({ roles: ["user"] });
    const { secret } = await tokenFor(me.id, ["dashboard.access"]);
    const res = await bearer("/api/events", secret);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    await res.body?.cancel();
  });

  it("is rate limited per token: 429 with Retry-After, other tokens unaffected", async () => {
    const me = await createUser({ roles: ["user"] });
    const busy = await tokenFor(me.id, ["dashboard.access"]);
    const other = await tokenFor(me.id, ["dashboard.access"]);
    for (let i = 0; i < LIMIT; i++) expect((await bearer("/api/tasks", busy.secret)).status).toBe(200);
    const limited = await bearer("/api/tasks", busy.secret);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({ error: "rate_limited" });
    expect((await bearer("/api/tasks", other.secret)).status).toBe(200);
  });

  it("records the last use at most once a minute", async () => {
    const me = await createUser({ roles: ["user"] });
    const { id, secret } = await tokenFor(me.id, ["dashboard.access"]);
    const lastUsed = async () =>
      (
        await db()
          .selectFrom("api_token")
          .select("last_used_at")
          .where("id", "=", id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    await bearer("/api/tasks", secret);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    // Each of these would write a later time if every request wrote.
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 5));
      await bearer("/api/tasks", secret);
    }
    expect(await lastUsed()).toBe(first);
    const old = new Date(Date.now() - LAST_USED_EVERY_MS - 1000).toISOString();
    await db().updateTable("api_token").set({ last_used_at: old }).where("id", "=", id).execute();
    await bearer("/api/tasks", secret);
    expect(Date.parse((await lastUsed())!)).toBeGreaterThan(Date.parse(first!) - 1);
  });
});

describe("the production event stream (served on the socket, app/server/event-stream.server.ts)", () => {
  it("opens with a token, refuses a bad one with 401 JSON, and closes when the token is revoked", async () => {
    const raw = await app.module<typeof import("../server/event-stream.server")>(
      "app/server/event-stream.server.ts",
    );
    const server = await listen((req, res) => raw.serveEventStream(req, res, "203.0.113.9"));
    try {
      const me = await createUser({ roles: ["user"] });
      const { id, secret } = await tokenFor(me.id, ["dashboard.access"]);
      const refused = rawGet(server.port, "/api/events", { Authorization: `Bearer dash_${"B".repeat(43)}` });
      expect(JSON.parse(await wholeBody(refused))).toEqual({ error: "unauthorized" });
      expect(refused.status()).toBe(401);
      refused.socket.destroy();

      const stream = rawGet(server.port, "/api/events", { Authorization: `Bearer ${secret}` });
      await stream.until((t) => t.includes("event: ping"));
      expect(stream.status()).toBe(200);
      // Revoked through the app's own module, as the Settings action does.
      const tokens = await app.module<typeof import("./api-tokens.server")>("app/auth/api-tokens.server.ts");
      const actor = { id: me.id, email: me.email, isSuperAdmin: false, permissions: new Set<string>() };
      await tokens.revokeOwnApiToken(actor, { id }, { request: request("/") });
      await Promise.race([stream.ended, stream.until((t) => t.endsWith("\r\n0\r\n\r\n"))]);
      stream.socket.destroy();
    } finally {
      await server.close();
    }
  });
});

describe("revoking", () => {
  it("revokes one's own token at once, audited; another's token id is 404 and unchanged", async () => {
    const me = await signedIn(["user"]);
    const other = await createUser({ roles: ["user"] });
    const { id, secret } = await tokenFor(me.id, ["dashboard.access"]);
    const theirs = await tokenFor(other.id, ["dashboard.access"]);
    expect((await bearer("/api/tasks", secret)).status).toBe(200);

    const before = await snapshot();
    const foreign = await settings(me.cookie, [
      ["intent", "revoke-api-token"],
      ["apiToken", theirs.id],
    ]);
    expect(foreign.status).toBe(404);
    const garbage = await settings(me.cookie, [
      ["intent", "revoke-api-token"],
      ["apiToken", "nope"],
    ]);
    expect(garbage.status).toBe(400);
    expect(await snapshot()).toEqual(before);

    const out = await settings(me.cookie, [
      ["intent", "revoke-api-token"],
      ["apiToken", id],
    ]);
    expect(out.status).toBe(200);
    expect((await bearer("/api/tasks", secret)).status).toBe(401);
    const audit = await db().selectFrom("audit_log").selectAll().where("target_id", "=", id).execute();
    expect(audit.map((a) => a.action)).toContain("account.api_token.revoke");
    // A second revoke finds nothing.
    expect(
      (
        await settings(me.cookie, [
          ["intent", "revoke-api-token"],
          ["apiToken", id],
        ])
      ).status,
    ).toBe(404);
  });
});

describe("an admin on the user page", () => {
  async function userPage(cookie: string, userId: string, tokenId: string) {
    const req = request(`/dashboard/users/${userId}`, {
      method: "POST",
      cookie,
      headers: FORM,
      body: new URLSearchParams({ intent: "revoke-api-token", apiToken: tokenId }).toString(),
    });
    return run(() => userPageAction(args(req, { id: userId })));
  }

  it("lists another account's tokens (never the secret) and revokes one with user.update", async () => {
    const admin = await signedIn(["admin"]);
    const owner = await createUser({ roles: ["user"] });
    const { id, secret } = await tokenFor(owner.id, ["dashboard.access"]);
    const page = await app.fetch(`/dashboard/users/${owner.id}.data?_routes=routes%2Fdashboard.users.%24id`, {
      cookie: admin.cookie,
    });
    const text = await page.text();
    expect(text).toContain(id);
    expect(text).not.toContain(secret.slice(5));
    expect(text).not.toContain(hashApiToken(secret));

    const out = await userPage(admin.cookie, owner.id, id);
    expect(out.status).toBe(302);
    expect((await bearer("/api/tasks", secret)).status).toBe(401);
    const audit = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "user.api_token.revoke")
      .where("target_id", "=", owner.id)
      .execute();
    expect(audit).toMatchObject([{ actor_id: admin.id }]);
  });

  it("refuses without user.update, for another user's token, and for a super admin's token (db unchanged)", async () => {
    const manager = await signedIn(["manager"]);
    const admin = await signedIn(["admin"]);
    const owner = await createUser({ roles: ["user"] });
    const bystander = await createUser({ roles: ["user"] });
    const root = await createUser({ roles: ["super_admin"] });
    const token = await tokenFor(owner.id, ["dashboard.access"]);
    const rootToken = await tokenFor(root.id, ["dashboard.access"]);
    const before = await snapshot();

    expect((await userPage(manager.cookie, owner.id, token.id)).status).toBe(403);
    const page = await app.fetch(`/dashboard/users/${owner.id}.data?_routes=routes%2Fdashboard.users.%24id`, {
      cookie: manager.cookie,
    });
    expect(await page.text()).not.toContain(token.id);
    // The token is not the page's user's: 404.
    expect((await userPage(admin.cookie, bystander.id, token.id)).status).toBe(404);
    // An admin cannot act on an account holding more than they do.
    expect((await userPage(admin.cookie, root.id, rootToken.id)).status).toBe(403);
    expect(await snapshot()).toEqual(before);
    expect((await bearer("/api/tasks", token.secret)).status).toBe(200);
  });
});

describe("owner deleted", () => {
  it("takes the tokens with it", async () => {
    const owner = await createUser({ roles: ["user"] });
    const { secret } = await tokenFor(owner.id, ["dashboard.access"]);
    await sessionCookieFor(owner.id);
    await db().deleteFrom("user").where("id", "=", owner.id).execute();
    expect((await bearer("/api/tasks", secret)).status).toBe(401);
    expect(await db().selectFrom("api_token").select("id").where("user_id", "=", owner.id).execute()).toEqual(
      [],
    );
  });
});
