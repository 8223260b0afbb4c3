import { beforeAll, describe, expect, it } from "vitest";
import {
  args,
  context,
  createUser,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { createRole } from "../access/roles-admin.server";
import { getSessionUser } from "../auth/session.server";
import { hashToken } from "../auth/tokens.server";
import { db } from "../db.server";
import { action, loader } from "../routes/dashboard.settings.directory/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";

// Settings → Directory: who may connect a directory (settings.manage and user.write), what it may
// hand out (never super admin, never a role the admin could not grant), the token shown once and
// stored hashed, and what removing a directory leaves behind.

const PAGE = "/dashboard/settings/directory";

beforeAll(setupDatabase);

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

function post(cookie: string, fields: Record<string, string>) {
  return run(() => action(args(formRequest(PAGE, fields, { cookie }))));
}

async function connect(cookie: string, extra: Record<string, string> = {}) {
  return post(cookie, {
    intent: "create-directory",
    name: "Okta",
    domains: "Example.com, example.org",
    defaultRoleId: await roleId("user"),
    "groupRoles[0].group": "Engineering",
    "groupRoles[0].roleId": await roleId("manager"),
    "groupRoles[0].team": "on",
    "groupRoles[1].group": "",
    "groupRoles[1].roleId": "",
    ...extra,
  });
}

describe("Settings → Directory", () => {
  it("is refused to anyone without settings.manage and user.write", async () => {
    const manager = await signedIn(["manager"]);
    const root = (await getSessionUser({
      request: request("/dashboard", { cookie: (await signedIn(["super_admin"])).cookie }),
      context: context(),
    }))!;
    await createRole(
      root,
      { name: "settings_only", label: "Settings only", permissions: ["dashboard.access", "settings.manage"] },
      { request: request("/dashboard/access"), context: context() },
    );
    const settingsOnly = await signedIn(["settings_only"]);
    for (const who of [manager, settingsOnly]) {
      expect((await run(() => loader(args(request(PAGE, { cookie: who.cookie }))))).status).toBe(403);
      expect((await connect(who.cookie)).status).toBe(403);
    }
    expect(await db().selectFrom("directory").select("id").execute()).toEqual([]);
  });

  it("connects a directory: the token is shown once, stored hashed, the mapping kept without its empty row", async () => {
    const admin = await signedIn(["admin"]);
    const out = await connect(admin.cookie);
    expect(out.status).toBe(200);
    const token = (out.body as { token: string }).token;
    expect(token).toMatch(/^scim_/);
    const row = await db().selectFrom("directory").selectAll().executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.parse(row.domains)).toEqual(["example.com", "example.org"]);
    expect(JSON.parse(row.group_roles)).toEqual([
      { group: "Engineering", roleId: await roleId("manager"), team: true },
    ]);
    const page = await run(() => loader(args(request(PAGE, { cookie: admin.cookie }))));
    expect(JSON.stringify(page.body)).not.toContain(token);
    expect((page.body as { scimUrl: string }).scimUrl).toMatch(/\/scim\/v2$/);
    const audit = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "directory.create")
      .executeTakeFirstOrThrow();
    expect(audit.details).not.toContain(token);
  });

  it("refuses the super admin role, a role the admin cannot grant, a group without a role and a bad domain", async () => {
    const root = (await getSessionUser({
      request: request("/dashboard", { cookie: (await signedIn(["super_admin"])).cookie }),
      context: context(),
    }))!;
    await createRole(
      root,
      {
        name: "directory_admin",
        label: "Directory admin",
        permissions: ["dashboard.access", "settings.manage", "user.write"],
      },
      { request: request("/dashboard/access"), context: context() },
    );
    const limited = await signedIn(["directory_admin"]);
    const superAdmin = await connect(limited.cookie, {
      name: "A",
      defaultRoleId: await roleId("super_admin"),
    });
    expect(superAdmin.status).toBe(403);
    // manager holds user.read and team.*, which this admin does not.
    const beyond = await connect(limited.cookie, { name: "B" });
    expect(beyond.status).toBe(403);
    const admin = await signedIn(["admin"]);
    const noRole = await connect(admin.cookie, { name: "C", "groupRoles[0].roleId": "" });
    expect(noRole.status).toBe(400);
    expect(JSON.stringify(noRole.body)).toContain("Choose the role this group gives.");
    const badDomain = await connect(admin.cookie, { name: "D", domains: "not a domain" });
    expect(badDomain.status).toBe(400);
    expect(
      await db().selectFrom("directory").select("name").where("name", "in", ["A", "B", "C", "D"]).execute(),
    ).toEqual([]);
  });

  it("rotates, revokes and removes; the accounts it managed stay and become editable", async () => {
    const admin = await signedIn(["admin"]);
    const out = await connect(admin.cookie, { name: "Entra", domains: "entra.example" });
    const { id } = await db()
      .selectFrom("directory")
      .select("id")
      .where("name", "=", "Entra")
      .executeTakeFirstOrThrow();
    const rotated = await post(admin.cookie, { intent: "rotate-directory-token", id });
    const newToken = (rotated.body as { token: string }).token;
    expect(newToken).not.toBe((out.body as { token: string }).token);
    expect(
      (await db().selectFrom("directory").select("token_hash").where("id", "=", id).executeTakeFirstOrThrow())
        .token_hash,
    ).toBe(hashToken(newToken));
    await post(admin.cookie, { intent: "revoke-directory-token", id });
    expect(
      (await db().selectFrom("directory").select("token_hash").where("id", "=", id).executeTakeFirstOrThrow())
        .token_hash,
    ).toBeNull();

    const managed = await createUser({ roles: ["user"], email: "kept@entra.example" });
    await db()
      .updateTable("user")
      .set({ directory_id: id, external_id: "x1" })
      .where("id", "=", managed.id)
      .execute();
    const cookie = await sessionCookieFor((await createUser({ roles: ["admin"] })).id);
    const userRole = await roleId("user");
    const edit = () =>
      run(() =>
        userAction(
          args(
            formRequest(
              `/dashboard/users/${managed.id}`,
              { intent: "update", name: "Edited", email: "kept@entra.example", roles: userRole },
              { cookie },
            ),
            { id: managed.id },
          ),
        ),
      );
    expect((await edit()).status).toBe(403);
    expect((await post(admin.cookie, { intent: "delete-directory", id })).status).toBe(200);
    const kept = await db()
      .selectFrom("user")
      .select(["directory_id", "status"])
      .where("id", "=", managed.id)
      .executeTakeFirstOrThrow();
    expect(kept).toEqual({ directory_id: null, status: "active" });
    expect((await edit()).status).toBe(302);
    expect(
      (await db().selectFrom("user").select("name").where("id", "=", managed.id).executeTakeFirstOrThrow())
        .name,
    ).toBe("Edited");
    expect(await db().selectFrom("directory").select("id").where("id", "=", id).execute()).toEqual([]);
    const actions = await db()
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "=", id)
      .orderBy("seq")
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      "directory.create",
      "directory.token.rotate",
      "directory.token.revoke",
      "directory.delete",
    ]);
  });

  it("refuses to rotate, revoke or remove a directory handing out roles beyond the admin's own", async () => {
    const root = (await getSessionUser({
      request: request("/dashboard", { cookie: (await signedIn(["super_admin"])).cookie }),
      context: context(),
    }))!;
    await createRole(
      root,
      {
        name: "helpdesk",
        label: "Helpdesk",
        permissions: ["dashboard.access", "settings.manage", "user.write", "user.update"],
      },
      { request: request("/dashboard/access"), context: context() },
    );
    const superAdmin = await signedIn(["super_admin"]);
    await connect(superAdmin.cookie, {
      name: "Mapped to admin",
      domains: "mapped.example",
      defaultRoleId: await roleId("admin"),
    });
    const { id, token_hash } = await db()
      .selectFrom("directory")
      .select(["id", "token_hash"])
      .where("name", "=", "Mapped to admin")
      .executeTakeFirstOrThrow();
    const helpdesk = await signedIn(["helpdesk"]);
    for (const intent of ["rotate-directory-token", "revoke-directory-token", "delete-directory"])
      expect((await post(helpdesk.cookie, { intent, id })).status).toBe(403);
    const after = await db()
      .selectFrom("directory")
      .select("token_hash")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(after.token_hash).toBe(token_hash);
  });

  it("answers a missing directory with 404", async () => {
    const admin = await signedIn(["admin"]);
    for (const intent of ["rotate-directory-token", "revoke-directory-token", "delete-directory"])
      expect((await post(admin.cookie, { intent, id: "nope" })).status).toBe(404);
  });
});
