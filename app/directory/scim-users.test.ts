import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { args, context, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { expectScimError, type ScimClient, scimClient, testOrigin } from "../../test/support/scim";
import { createApiToken } from "../auth/api-tokens.server";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { loader as eventsLoader } from "../routes/api.events";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { createDirectory, revokeDirectoryToken, rotateDirectoryToken } from "./directories.server";

// /scim/v2/Users: what a directory sees and may change, the SCIM shapes of every answer, and
// deprovisioning that ends a person's access within the one request.

const postmark = withFakePostmark();
let app: AppServer;
let admin: SessionUser;
let scim: ScimClient;
let directoryId: string;
let token: string;

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

async function sessionUser(roles: string[]) {
  const user = await createUser({ roles });
  const cookie = await sessionCookieFor(user.id);
  return (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
}

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  admin = await sessionUser(["admin"]);
  const created = await createDirectory(
    admin,
    {
      name: "Okta",
      domains: ["example.com"],
      defaultRoleId: await roleId("user"),
      groupRoles: [],
      sendPasswordLink: false,
    },
    testOrigin(),
  );
  directoryId = created.id;
  token = created.token;
  scim = scimClient(app, token);
});
afterAll(() => app.close());

const user = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName,
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [{ value: userName, type: "work", primary: true }],
  active: true,
  ...extra,
});

async function provision(userName: string, extra: Record<string, unknown> = {}) {
  const created = await scim("POST", "/Users", user(userName, extra));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

describe("authentication", () => {
  it("refuses a request without a token, with a wrong one and with a revoked one, in SCIM's shape", async () => {
    const none = await app.handle(new Request("http://localhost:3000/scim/v2/Users"));
    expect(none.status).toBe(401);
    expect(none.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({
      status: "401",
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
    });
    expectScimError(await scimClient(app, "scim_wrong")("GET", "/Users"), 401);
    // A personal API token is not a directory token.
    expectScimError(await scimClient(app, "dash_whatever")("GET", "/Users"), 401);

    const other = await createDirectory(
      admin,
      {
        name: "Revoked",
        domains: ["example.org"],
        defaultRoleId: null,
        groupRoles: [],
        sendPasswordLink: false,
      },
      testOrigin(),
    );
    const client = scimClient(app, other.token);
    expect((await client("GET", "/Users")).status).toBe(200);
    const rotated = await rotateDirectoryToken(admin, other.id, testOrigin());
    expectScimError(await client("GET", "/Users"), 401);
    expect((await scimClient(app, rotated)("GET", "/Users")).status).toBe(200);
    await revokeDirectoryToken(admin, other.id, testOrigin());
    expectScimError(await scimClient(app, rotated)("GET", "/Users"), 401);
  });

  it("limits each directory's requests a minute, with Retry-After", async () => {
    process.env.RATE_LIMIT_SCIM_PER_MINUTE = "3";
    resetEnvCache();
    await resetRateLimits();
    try {
      for (let i = 0; i < 3; i++) expect((await scim("GET", "/ServiceProviderConfig")).status).toBe(200);
      const limited = await scim("GET", "/ServiceProviderConfig");
      expectScimError(limited, 429, "tooMany");
      expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    } finally {
      delete process.env.RATE_LIMIT_SCIM_PER_MINUTE;
      resetEnvCache();
      await resetRateLimits();
    }
  });
});

describe("discovery", () => {
  it("describes what it supports: config, resource types and schemas", async () => {
    const config = await scim("GET", "/ServiceProviderConfig");
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
    });
    const types = await scim("GET", "/ResourceTypes");
    expect((types.body.Resources as { id: string }[]).map((r) => r.id)).toEqual(["User", "Group"]);
    expect((await scim("GET", "/ResourceTypes/Group")).body).toMatchObject({ endpoint: "/Groups" });
    const schemas = await scim("GET", "/Schemas");
    expect((schemas.body.Resources as { id: string }[]).map((r) => r.id)).toContain(
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
    );
    expectScimError(await scim("GET", "/Schemas/urn:nope"), 404);
    expectScimError(await scim("GET", "/Nothing"), 404);
    expectScimError(await scim("DELETE", "/ServiceProviderConfig"), 405);
  });
});

describe("POST /Users", () => {
  it("creates a verified account without a password, with the default role, audited as the directory", async () => {
    const created = await scim(
      "POST",
      "/Users",
      user("ada@example.com", { externalId: "00u1", displayName: "Ada L." }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.get("Location")).toBe(`http://localhost:3000/scim/v2/Users/${id}`);
    expect(created.headers.get("ETag")).toBe((created.body.meta as { version: string }).version);
    expect(created.body).toMatchObject({
      userName: "ada@example.com",
      displayName: "Ada L.",
      externalId: "00u1",
      active: true,
      emails: [{ value: "ada@example.com", primary: true }],
      meta: { resourceType: "User", location: `http://localhost:3000/scim/v2/Users/${id}` },
    });
    const row = await db().selectFrom("user").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      email_verified: 1,
      password_hash: null,
      status: "active",
      directory_id: directoryId,
    });
    const roles = await db().selectFrom("user_role").select("role_id").where("user_id", "=", id).execute();
    expect(roles.map((r) => r.role_id)).toEqual([await roleId("user")]);
    const audit = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("target_id", "=", id)
      .where("action", "=", "user.create")
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actor_id: null, actor_email: "Directory: Okta" });
    expect(audit.request_id).toBeTruthy();
  });

  it("refuses another domain, a userName that is no address, a taken address and a bad body", async () => {
    expectScimError(await scim("POST", "/Users", user("eve@elsewhere.net")), 403);
    expectScimError(await scim("POST", "/Users", user("not-an-address")), 400, "invalidValue");
    await provision("twice@example.com");
    expectScimError(await scim("POST", "/Users", user("TWICE@example.com")), 409, "uniqueness");
    expectScimError(await scim("POST", "/Users", { userName: 7 }), 400, "invalidValue");
    const raw = await app.handle(
      new Request("http://localhost:3000/scim/v2/Users", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
        body: "{not json",
      }),
    );
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ scimType: "invalidSyntax" });
    expect(
      await db().selectFrom("user").select("id").where("email", "=", "eve@elsewhere.net").execute(),
    ).toEqual([]);
  });
});

describe("what a directory sees", () => {
  it("never a super admin, another directory's people or another domain's; people of its domain it may adopt", async () => {
    const superAdmin = await createUser({ roles: ["super_admin"], email: "boss@example.com" });
    const outsider = await createUser({ roles: ["user"], email: "out@elsewhere.net" });
    const local = await createUser({ roles: ["user"], email: "local@example.com" });
    for (const id of [superAdmin.id, outsider.id]) expectScimError(await scim("GET", `/Users/${id}`), 404);
    expect((await scim("GET", `/Users/${local.id}`)).body).toMatchObject({ userName: "local@example.com" });
    const list = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "boss@example.com"')}`);
    expect(list.body.totalResults).toBe(0);
    expectScimError(await scim("PATCH", `/Users/${superAdmin.id}`, deactivate()), 404);
    expectScimError(await scim("DELETE", `/Users/${superAdmin.id}`), 404);
    expectScimError(await scim("POST", "/Users", user("boss@example.com")), 409, "uniqueness");
    const boss = await db()
      .selectFrom("user")
      .select(["status", "directory_id"])
      .where("id", "=", superAdmin.id)
      .executeTakeFirstOrThrow();
    expect(boss).toEqual({ status: "active", directory_id: null });
  });

  it("answers a create for an address it cannot see exactly as for a taken one it can; outside its domains the same 403 either way (decision 033)", async () => {
    const seen = await createUser({ roles: ["user"], email: "seen@example.com" });
    await createUser({ roles: ["super_admin"], email: "chief@example.com" });
    const other = await createDirectory(
      admin,
      {
        name: "Entra",
        domains: ["example.com"],
        defaultRoleId: await roleId("user"),
        groupRoles: [],
        sendPasswordLink: false,
      },
      testOrigin(),
    );
    const theirs = await scimClient(app, other.token)("POST", "/Users", user("theirs@example.com"));
    expect(theirs.status).toBe(201);
    const refusal = async (email: string) => {
      const answer = await scim("POST", "/Users", user(email));
      return { status: answer.status, body: answer.body };
    };
    // A conflict it can see (RFC 7644: 409 uniqueness), and two it cannot: one answer for all three.
    const visible = await refusal(seen.email);
    expect(visible).toMatchObject({ status: 409, body: { scimType: "uniqueness" } });
    expect(await refusal("chief@example.com")).toEqual(visible);
    expect(await refusal("theirs@example.com")).toEqual(visible);
    // Outside its domains, whether the address has an account or not is never said.
    await createUser({ roles: ["super_admin"], email: "chief@elsewhere.net" });
    const foreign = await refusal("chief@elsewhere.net");
    expect(foreign.status).toBe(403);
    expect((await refusal("nobody@elsewhere.net")).body.detail).toBe(foreign.body.detail);
    const rows = await db()
      .selectFrom("user")
      .select(["email", "directory_id"])
      .where("email", "in", ["chief@example.com", "theirs@example.com", "nobody@elsewhere.net"])
      .orderBy("email")
      .execute();
    expect(rows).toEqual([
      { email: "chief@example.com", directory_id: null },
      { email: "theirs@example.com", directory_id: other.id },
    ]);
  });

  it("refuses to change someone holding more than the roles it gives (an admin)", async () => {
    const peer = await createUser({ roles: ["admin"], email: "peer-admin@example.com" });
    expectScimError(await scim("PATCH", `/Users/${peer.id}`, deactivate()), 403);
    expectScimError(await scim("DELETE", `/Users/${peer.id}`), 403);
    const row = await db()
      .selectFrom("user")
      .select(["status", "directory_id"])
      .where("id", "=", peer.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "active", directory_id: null });
  });
});

describe("GET /Users with filters and paging", () => {
  it("answers eq, co, sw, pr, and/or, on userName, externalId, emails.value and displayName", async () => {
    await provision("grace@example.com", { externalId: "ext-grace", displayName: "Grace Hopper" });
    await provision("gracie@example.com", { displayName: "Gracie Allen" });
    const names = async (filter: string) => {
      const answer = await scim("GET", `/Users?filter=${encodeURIComponent(filter)}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return (answer.body.Resources as { userName: string }[]).map((r) => r.userName).sort();
    };
    expect(await names('userName eq "GRACE@example.com"')).toEqual(["grace@example.com"]);
    expect(await names('externalId eq "ext-grace"')).toEqual(["grace@example.com"]);
    expect(await names('emails.value eq "gracie@example.com"')).toEqual(["gracie@example.com"]);
    expect(await names('emails[value eq "gracie@example.com"]')).toEqual(["gracie@example.com"]);
    expect(await names('displayName co "hopp"')).toEqual(["grace@example.com"]);
    expect(await names('userName sw "grac"')).toEqual(["grace@example.com", "gracie@example.com"]);
    expect(await names('userName sw "grac" and externalId pr')).toEqual(["grace@example.com"]);
    expect(await names('displayName eq "Gracie Allen" or externalId eq "ext-grace"')).toEqual([
      "grace@example.com",
      "gracie@example.com",
    ]);
    // % and _ are literal, not wildcards.
    expect(await names('userName co "%"')).toEqual([]);
    expectScimError(
      await scim("GET", `/Users?filter=${encodeURIComponent("userName eq")}`),
      400,
      "invalidFilter",
    );
    expectScimError(
      await scim("GET", `/Users?filter=${encodeURIComponent('password eq "x"')}`),
      400,
      "invalidFilter",
    );
  });

  it("pages with startIndex and count, and reports the total", async () => {
    for (let i = 0; i < 5; i++) await provision(`page${i}@example.com`);
    const filter = encodeURIComponent('userName sw "page"');
    const first = await scim("GET", `/Users?filter=${filter}&startIndex=1&count=2`);
    expect(first.body).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 2 });
    const last = await scim("GET", `/Users?filter=${filter}&startIndex=5&count=2`);
    expect(last.body).toMatchObject({ totalResults: 5, startIndex: 5, itemsPerPage: 1 });
    const ids = new Set<string>();
    for (const start of [1, 3, 5]) {
      const page = await scim("GET", `/Users?filter=${filter}&startIndex=${start}&count=2`);
      for (const r of page.body.Resources as { id: string }[]) ids.add(r.id);
    }
    expect(ids.size).toBe(5);
    expect((await scim("GET", `/Users?filter=${filter}&count=0`)).body).toMatchObject({
      totalResults: 5,
      itemsPerPage: 0,
    });
    expectScimError(await scim("GET", "/Users?count=abc"), 400, "invalidValue");
  });
});

const deactivate = () => ({
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: [{ op: "replace", value: { active: false } }],
});

describe("deprovisioning", () => {
  async function personWithEverything(email: string) {
    const id = await provision(email);
    const cookie = await sessionCookieFor(id);
    const person = (await getSessionUser({
      request: request("/dashboard", { cookie }),
      context: context(),
    }))!;
    const { secret: apiToken } = await createApiToken(
      person,
      { name: "laptop", permissions: ["dashboard.access"], expiresInDays: 30 },
      testOrigin(),
    );
    const stream = await eventsLoader(args(request("/api/events", { cookie })));
    const reader = (stream as Response).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: ping");
    return { id, cookie, apiToken, reader };
  }

  async function streamEnds(reader: ReadableStreamDefaultReader<Uint8Array>) {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return true;
    }
  }

  it("active false ends sessions, API tokens and event streams within the one request; re-activation keeps tokens revoked", async () => {
    const p = await personWithEverything("leaver@example.com");
    const api = (t: string) =>
      app.handle(
        new Request("http://localhost:3000/api/ping", { headers: { Authorization: `Bearer ${t}` } }),
      );
    expect((await api(p.apiToken)).status).toBe(200);

    const answer = await scim("PATCH", `/Users/${p.id}`, deactivate());
    expect(answer.status).toBe(200);
    expect(answer.body.active).toBe(false);
    // All of it was over before the answer came back.
    expect(await db().selectFrom("session").select("id").where("user_id", "=", p.id).execute()).toEqual([]);
    expect(await streamEnds(p.reader)).toBe(true);
    expect((await api(p.apiToken)).status).toBe(401);
    const page = await app.fetch("/dashboard", { cookie: p.cookie });
    expect(page.status).toBe(302);
    const tokenRow = await db()
      .selectFrom("api_token")
      .select("revoked_at")
      .where("user_id", "=", p.id)
      .executeTakeFirstOrThrow();
    expect(tokenRow.revoked_at).not.toBeNull();

    const back = await scim("PATCH", `/Users/${p.id}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", path: "active", value: true }],
    });
    expect(back.body.active).toBe(true);
    expect((await api(p.apiToken)).status).toBe(401);
    const actions = await db()
      .selectFrom("audit_log")
      .select(["action", "actor_email"])
      .where("target_id", "=", p.id)
      .where("action", "in", ["user.disable", "user.enable"])
      .orderBy("seq")
      .execute();
    expect(actions).toEqual([
      { action: "user.disable", actor_email: "Directory: Okta" },
      { action: "user.enable", actor_email: "Directory: Okta" },
    ]);
  });

  it("DELETE disables and hides the account; provisioning the address again brings the same account back", async () => {
    const p = await personWithEverything("deleted@example.com");
    const deleted = await app.handle(
      new Request(`http://localhost:3000/scim/v2/Users/${p.id}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${token}` },
      }),
    );
    expect(deleted.status).toBe(204);
    expect(await streamEnds(p.reader)).toBe(true);
    expectScimError(await scim("GET", `/Users/${p.id}`), 404);
    expectScimError(await scim("DELETE", `/Users/${p.id}`), 404);
    const row = await db()
      .selectFrom("user")
      .select(["status", "directory_deleted_at"])
      .where("id", "=", p.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("disabled");
    expect(row.directory_deleted_at).not.toBeNull();
    expect(await db().selectFrom("session").select("id").where("user_id", "=", p.id).execute()).toEqual([]);

    // Whoever held the address before left a password: the account comes back without it.
    await db().updateTable("user").set({ password_hash: "old-holder" }).where("id", "=", p.id).execute();
    const again = await scim("POST", "/Users", user("deleted@example.com"));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(p.id);
    expect(again.body.active).toBe(true);
    const revived = await db()
      .selectFrom("user")
      .select("password_hash")
      .where("id", "=", p.id)
      .executeTakeFirstOrThrow();
    expect(revived.password_hash).toBeNull();
  });
});

describe("what else provisioning does", () => {
  it("ends a super admin's View as of the person it disables", async () => {
    const id = await provision("viewed@example.com");
    const root = await createUser({ roles: ["super_admin"] });
    const cookie = await sessionCookieFor(root.id);
    const view = formRequest(`/dashboard/users/${id}`, { intent: "view-as" }, { cookie });
    expect((await run(() => userAction(args(view, { id })))).status).toBe(302);
    const who = () => getSessionUser({ request: request("/dashboard", { cookie }), context: context() });
    expect((await who())?.id).toBe(id);
    await scim("PATCH", `/Users/${id}`, deactivate());
    const after = await who();
    expect(after?.id).toBe(root.id);
    expect(after?.impersonator ?? null).toBeNull();
  });

  it("mails a link to set a password when the directory says so, and none otherwise", async () => {
    const created = await createDirectory(
      admin,
      {
        name: "Links",
        domains: ["links.example"],
        defaultRoleId: null,
        groupRoles: [],
        sendPasswordLink: true,
      },
      testOrigin(),
    );
    const links = scimClient(app, created.token);
    expect((await links("POST", "/Users", user("new@links.example"))).status).toBe(201);
    const sent = postmark.fake.messages.filter((m) => m.To === "new@links.example");
    expect(sent).toHaveLength(1);
    expect(linkIn(sent[0]!.TextBody, "/reset-password?token=")).toBeTruthy();
    // An account created inactive gets nothing, and neither does a directory that uses SSO.
    await links("POST", "/Users", user("later@links.example", { active: false }));
    await provision("sso-only@example.com");
    expect(postmark.fake.messages.filter((m) => m.To !== "new@links.example")).toEqual([]);
  });
});

describe("PUT and versions", () => {
  it("replaces the whole user; If-Match with an old version is refused with 412", async () => {
    const id = await provision("put@example.com", { externalId: "e1" });
    const read = await scim("GET", `/Users/${id}`);
    const version = read.headers.get("ETag")!;
    const put = await scim(
      "PUT",
      `/Users/${id}`,
      user("put@example.com", { displayName: "Renamed", externalId: "e2", active: true }),
      { "If-Match": version },
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: "Renamed", externalId: "e2" });
    expect(put.headers.get("ETag")).not.toBe(version);
    expectScimError(await scim("PUT", `/Users/${id}`, user("put@example.com"), { "If-Match": version }), 412);
    // A PUT that does not say `active` leaves an admin's disabling as it is.
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", id).execute();
    const { active: _, ...withoutActive } = user("put@example.com", { displayName: "Renamed" });
    expect((await scim("PUT", `/Users/${id}`, withoutActive)).body.active).toBe(false);
    expectScimError(await scim("PUT", `/Users/${id}`, user("put@elsewhere.net")), 403);
    const name = await db().selectFrom("user").select("name").where("id", "=", id).executeTakeFirstOrThrow();
    expect(name.name).toBe("Renamed");
  });
});

describe("the admin UI", () => {
  it("keeps an account's directory-managed fields read-only", async () => {
    const id = await provision("readonly@example.com");
    const { action } = await import("../routes/dashboard.users.$id/route");
    const { formRequest } = await import("../../test/support/forms");
    const cookie = await sessionCookieFor(admin.id);
    const req = formRequest(
      `/dashboard/users/${id}`,
      { intent: "update", name: "Changed here", email: "readonly@example.com", roles: await roleId("user") },
      { cookie },
    );
    const out = await run(() => action(args(req, { id })));
    expect(out.status).toBe(403);
    expect(JSON.stringify(out.body)).toContain("Okta manages this account");
    const row = await db().selectFrom("user").select("name").where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.name).toBe("Ada Lovelace");
  });
});
