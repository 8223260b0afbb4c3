import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { context, createUser, PASSWORD, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { expectScimError, type ScimClient, scimClient, testOrigin } from "../../test/support/scim";
import { attackerSignIn, expectSquatterLockedOut, registerAsAttacker } from "../../test/support/squatter";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { createDirectory } from "./directories.server";

// Issue 34 part 2 (SECURITY-PLAYBOOK §1): an outsider registers a company address before the
// directory provisions it. Whatever path the directory takes to the account (PUT, PATCH, group
// membership, POST), the squatter's password, session, token and factors never outlive it, least
// of all once a group makes the account an admin.

let app: AppServer;
let scim: ScimClient;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

async function rolesOf(userId: string) {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_id", "=", userId)
    .orderBy("role.name")
    .execute();
  return rows.map((r) => r.name);
}

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  const user = await createUser({ roles: ["super_admin"] });
  const cookie = await sessionCookieFor(user.id);
  const admin = (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
  const { token } = await createDirectory(
    admin,
    {
      name: "Okta",
      domains: ["example.com"],
      defaultRoleId: await roleId("user"),
      groupRoles: [{ group: "Admins", roleId: await roleId("admin"), team: false }],
      sendPasswordLink: false,
    },
    testOrigin(),
  );
  scim = scimClient(app, token);
});
afterAll(() => app.close());

const user = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName,
  name: { givenName: "Chief", familyName: "Executive" },
  emails: [{ value: userName, type: "work", primary: true }],
  active: true,
  ...extra,
});

/** Okta's lookup before a create finds the squatter's account: the directory adopts that one. */
async function lookUp(email: string): Promise<string> {
  const found = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
  expect(found.body.totalResults).toBe(1);
  return (found.body.Resources as { id: string }[])[0]!.id;
}

/** Puts the account in the one group mapped to admin (made afresh: each test starts without it). */
async function makeAdmin(id: string, email: string) {
  const old = await scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Admins"')}`);
  for (const g of (old.body.Resources as { id: string }[] | undefined) ?? [])
    await scim("DELETE", `/Groups/${g.id}`);
  const group = await scim("POST", "/Groups", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
    displayName: "Admins",
    members: [{ value: id, display: email }],
  });
  expect(group.status).toBe(201);
  return group.body.id as string;
}

describe("a directory adopting an address someone registered first", () => {
  it("PUT: the squatter's password, session, token, passkey, two-factor and devices are gone, audited", async () => {
    const squatter = await registerAsAttacker("ceo@example.com");
    const id = await lookUp("ceo@example.com");
    expect(id).toBe(squatter.id);
    const put = await scim("PUT", `/Users/${id}`, user("ceo@example.com"));
    expect(put.status).toBe(200);
    await makeAdmin(id, "ceo@example.com");
    expect(await rolesOf(id)).toEqual(["admin", "user"]);
    const row = await expectSquatterLockedOut(squatter, "directory");
    expect(row).toMatchObject({ password_hash: null, directory_id: expect.any(String) });
    // The directory's later changes take nothing over again.
    expect((await scim("PUT", `/Users/${id}`, user("ceo@example.com", { displayName: "CEO" }))).status).toBe(
      200,
    );
  });

  it("PATCH (Okta's and Entra's replace of active): the same", async () => {
    const squatter = await registerAsAttacker("cfo@example.com");
    const id = await lookUp("cfo@example.com");
    const patch = await scim("PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { active: true, externalId: "00u-cfo" } }],
    });
    expect(patch.status).toBe(200);
    await makeAdmin(id, "cfo@example.com");
    expect(await rolesOf(id)).toEqual(["admin", "user"]);
    await expectSquatterLockedOut(squatter, "directory");
  });

  it("group membership alone claims nothing: the account stays unverified, without the group's role", async () => {
    const squatter = await registerAsAttacker("cto@example.com");
    await makeAdmin(squatter.id, "cto@example.com");
    expect(await rolesOf(squatter.id)).toEqual(["user"]);
    const row = await db()
      .selectFrom("user")
      .select(["email_verified", "directory_id"])
      .where("id", "=", squatter.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email_verified: 0, directory_id: null });
    expect(await attackerSignIn("cto@example.com")).toBe(400);
  });

  it("POST over the squatter's address is refused (409) and verifies nothing", async () => {
    const squatter = await registerAsAttacker("coo@example.com");
    expectScimError(await scim("POST", "/Users", user("coo@example.com")), 409, "uniqueness");
    const row = await db()
      .selectFrom("user")
      .select(["email_verified", "pending_registration", "directory_id"])
      .where("id", "=", squatter.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email_verified: 0, pending_registration: 1, directory_id: null });
    expect(await attackerSignIn("coo@example.com")).toBe(400);
  });

  it("DELETE then POST gives the account back to its address without anything its earlier holder set", async () => {
    const squatter = await registerAsAttacker("cmo@example.com");
    await scim("PUT", `/Users/${squatter.id}`, user("cmo@example.com"));
    await db().deleteFrom("audit_log").where("target_id", "=", squatter.id).execute();
    expect((await scim("DELETE", `/Users/${squatter.id}`)).status).toBe(204);
    // Whoever held the address meanwhile (written straight in: a deleted account signs in nowhere).
    await db()
      .updateTable("user")
      .set({ password_hash: "old-holder" })
      .where("id", "=", squatter.id)
      .execute();
    const again = await scim("POST", "/Users", user("cmo@example.com"));
    expect(again.status).toBe(201);
    const row = await db()
      .selectFrom("user")
      .select("password_hash")
      .where("id", "=", squatter.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toBeNull();
    const audited = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "account.taken_over")
      .where("target_id", "=", squatter.id)
      .execute();
    expect(audited.map((a) => JSON.parse(a.details!))).toEqual([
      expect.objectContaining({ source: "directory", restored: true }),
    ]);
  });
});

describe("a verified account of the directory's domain (the current rule, decision 033)", () => {
  it("is adopted keeping its holder's own password: the directory gains no way to sign in", async () => {
    const holder = await createUser({ roles: ["user"], email: "staff@example.com" });
    expect((await scim("PUT", `/Users/${holder.id}`, user("staff@example.com"))).status).toBe(200);
    // Their own password still signs them in (302); the directory never had it.
    expect(await attackerSignIn("staff@example.com", PASSWORD)).toBe(302);
    const takeovers = await db()
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "account.taken_over")
      .where("target_id", "=", holder.id)
      .execute();
    expect(takeovers).toEqual([]);
  });

  it("is refused when it holds more than the directory gives (a super admin is not even visible)", async () => {
    const manager = await createUser({ roles: ["super_admin"], email: "owner@example.com" });
    expectScimError(await scim("PUT", `/Users/${manager.id}`, user("owner@example.com")), 404);
    const row = await db()
      .selectFrom("user")
      .select(["directory_id", "password_hash"])
      .where("id", "=", manager.id)
      .executeTakeFirstOrThrow();
    expect(row.directory_id).toBeNull();
    expect(row.password_hash).not.toBeNull();
  });
});
