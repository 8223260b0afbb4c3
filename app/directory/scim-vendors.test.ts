import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { expectScimError, type ScimClient, scimClient, testOrigin } from "../../test/support/scim";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { createDirectory } from "./directories.server";

// The request sequences Okta and Microsoft Entra ID send, as their documentation records them
// (Okta: "SCIM 2.0 protocol reference"; Entra: "Tutorial: Develop and plan provisioning for a SCIM
// endpoint"), with the groups of each mapped to a role and a team.

let app: AppServer;

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

async function teamMembers(name: string) {
  const rows = await db()
    .selectFrom("team_member")
    .innerJoin("team", "team.id", "team_member.team_id")
    .innerJoin("user", "user.id", "team_member.user_id")
    .select("user.email")
    .where("team.name", "=", name)
    .orderBy("user.email")
    .execute();
  return rows.map((r) => r.email);
}

async function directory(name: string, domain: string, group: string): Promise<ScimClient> {
  const user = await createUser({ roles: ["admin"] });
  const cookie = await sessionCookieFor(user.id);
  const admin = (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
  const { token } = await createDirectory(
    admin,
    {
      name,
      domains: [domain],
      defaultRoleId: await roleId("user"),
      groupRoles: [{ group, roleId: await roleId("manager"), team: true }],
      sendPasswordLink: false,
    },
    testOrigin(),
  );
  return scimClient(app, token);
}

const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
});
afterAll(() => app.close());

describe("Okta", () => {
  it("replays Okta's provisioning: filter before create, create, read, PUT, group push, rename, removal, deactivate", async () => {
    const scim = await directory("Okta", "okta.example", "Engineering");
    const lookup = await scim(
      "GET",
      `/Users?filter=${encodeURIComponent('userName eq "isabella@okta.example"')}&startIndex=1&count=100`,
    );
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ totalResults: 0, Resources: [] });

    const created = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "isabella@okta.example",
      name: { givenName: "Isabella", familyName: "Rossi" },
      emails: [{ primary: true, value: "isabella@okta.example", type: "work" }],
      displayName: "Isabella Rossi",
      locale: "en-US",
      externalId: "00ujl29u0le5T6Aj10h7",
      groups: [],
      // Okta may send one; the account has none (sign-in through SSO or the emailed link).
      password: "1mz050nq",
      active: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      (await db().selectFrom("user").select("password_hash").where("id", "=", id).executeTakeFirstOrThrow())
        .password_hash,
    ).toBeNull();

    const read = await scim("GET", `/Users/${id}`);
    expect(read.body).toMatchObject({
      userName: "isabella@okta.example",
      active: true,
      externalId: "00ujl29u0le5T6Aj10h7",
    });

    const put = await scim("PUT", `/Users/${id}`, {
      ...read.body,
      name: { givenName: "Isabella", familyName: "Rossi-Bianchi" },
      displayName: "Isabella Rossi-Bianchi",
    });
    expect(put.status).toBe(200);
    expect(put.body.displayName).toBe("Isabella Rossi-Bianchi");

    const groupLookup = await scim(
      "GET",
      `/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}&startIndex=1&count=100`,
    );
    expect(groupLookup.body.totalResults).toBe(0);
    const group = await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Engineering",
      members: [],
    });
    expect(group.status).toBe(201);
    const groupId = group.body.id as string;
    const added = await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: "members", value: [{ value: id, display: "isabella@okta.example" }] }],
    });
    expect(added.status).toBe(200);
    expect(added.body.members).toMatchObject([{ value: id }]);
    expect(await rolesOf(id)).toEqual(["manager", "user"]);
    expect(await teamMembers("Engineering")).toEqual(["isabella@okta.example"]);
    expect((await scim("GET", `/Users/${id}`)).body.groups).toMatchObject([
      { value: groupId, display: "Engineering" },
    ]);

    // Okta renames a group with a replace without a path; the mapping is by name, so the role goes.
    const renamed = await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { id: groupId, displayName: "Engineering Team" } }],
    });
    expect(renamed.body.displayName).toBe("Engineering Team");
    expect(await rolesOf(id)).toEqual(["user"]);
    await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { id: groupId, displayName: "Engineering" } }],
    });
    expect(await rolesOf(id)).toEqual(["manager", "user"]);

    const removed = await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "remove", path: `members[value eq "${id}"]` }],
    });
    expect(removed.status).toBe(200);
    expect(removed.body.members).toEqual([]);
    expect(await rolesOf(id)).toEqual(["user"]);
    expect(await teamMembers("Engineering")).toEqual([]);

    const off = await scim("PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    expect(off.body.active).toBe(false);
    expect(
      (await db().selectFrom("user").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status,
    ).toBe("disabled");

    const gone = await scim("DELETE", `/Groups/${groupId}`);
    expect(gone.status).toBe(204);
    expectScimError(await scim("GET", `/Groups/${groupId}`), 404);
  });
});

describe("Microsoft Entra ID", () => {
  it("replays Entra's provisioning: capitalised ops, string booleans, the enterprise extension, member add/remove by value", async () => {
    const scim = await directory("Entra", "entra.example", "Sales");
    const userName = "test.user@entra.example";
    expect(
      (await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body
        .totalResults,
    ).toBe(0);

    const created = await scim("POST", "/Users", {
      schemas: [
        "urn:ietf:params:scim:schemas:core:2.0:User",
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
      ],
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName,
      active: true,
      emails: [{ primary: true, type: "work", value: userName }],
      meta: { resourceType: "User" },
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      roles: [],
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Finance" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      displayName: "givenName familyName",
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Finance" },
    });
    const found = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });

    const patched = await scim("PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
        { op: "Replace", path: "name.givenName", value: "updatedGivenName" },
        {
          op: "Add",
          path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
          value: "Sales",
        },
      ],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.displayName).toBe("updatedGivenName updatedFamilyName");
    expect(patched.body["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"]).toEqual({
      department: "Sales",
    });

    const group = await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "Sales",
      meta: { resourceType: "Group" },
    });
    expect(group.status).toBe(201);
    const groupId = group.body.id as string;
    const listed = await scim(
      "GET",
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Sales"')}`,
    );
    expect(listed.body).toMatchObject({
      totalResults: 1,
      Resources: [{ id: groupId, displayName: "Sales" }],
    });
    expect((listed.body.Resources as Record<string, unknown>[])[0]).not.toHaveProperty("members");

    const add = await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "Add", path: "members", value: [{ value: id }] }],
    });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    expect(await rolesOf(id)).toEqual(["manager", "user"]);
    expect(await teamMembers("Sales")).toEqual([userName]);

    const remove = await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }],
    });
    expect(remove.status, JSON.stringify(remove.body)).toBe(200);
    expect(await rolesOf(id)).toEqual(["user"]);

    const rename = await scim("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "Replace", path: "displayName", value: "Sales EMEA" }],
    });
    expect(rename.body.displayName).toBe("Sales EMEA");

    // Entra's older, non-compliant boolean.
    const disabled = await scim("PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(disabled.body.active).toBe(false);

    expect((await scim("DELETE", `/Users/${id}`)).status).toBe(204);
    expect((await scim("DELETE", `/Groups/${groupId}`)).status).toBe(204);
  });

  it("refuses a member it does not see, a duplicate group name and a bad operation", async () => {
    const scim = await directory("Entra two", "two.example", "Ops");
    const stranger = await createUser({ roles: ["user"], email: "stranger@elsewhere.example" });
    expectScimError(
      await scim("POST", "/Groups", { displayName: "Ops", members: [{ value: stranger.id }] }),
      400,
      "invalidValue",
    );
    const ops = await scim("POST", "/Groups", { displayName: "Ops" });
    expect(ops.status).toBe(201);
    expectScimError(await scim("POST", "/Groups", { displayName: "Ops" }), 409, "uniqueness");
    expectScimError(
      await scim("PATCH", `/Groups/${ops.body.id}`, {
        schemas: [PATCH],
        Operations: [{ op: "move", path: "members" }],
      }),
      400,
    );
    expectScimError(await scim("PATCH", `/Groups/${ops.body.id}`, { Operations: [] }), 400);
    expect(await teamMembers("Ops")).toEqual([]);
  });
});
