import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { invalidateRoles } from "../access/role-cache.server";
import { db, now } from "../db.server";
import { action as listAction, loader as listLoader } from "../routes/dashboard.users/route";
import { loader as userLoader } from "../routes/dashboard.users.$id/route";

// Roles are listed in one order on the users pages (app/access/role-order.ts): system roles by
// rank, then custom roles by label, whatever order the database or the labels would give.

beforeAll(setupDatabase);

const SYSTEM = ["super_admin", "admin", "manager", "user", "guest"];

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

async function addRole(name: string, label: string) {
  const id = randomUUID();
  await db().insertInto("role").values({ id, name, label, created_at: now(), updated_at: now() }).execute();
  return id;
}

type Listed = { name: string; label: string };

describe("the users pages list roles in the one role order", () => {
  it("filters, tick boxes, each row's roles, the user page and pending invitations", async () => {
    // Labels that sort before the system roles alphabetically, and a custom role created first.
    await addRole("zz_support", "Aardvark Support");
    await addRole("aa_ops", "Zebra Ops");
    await invalidateRoles();
    const names = async (ids: string[]) => {
      const rows = await db().selectFrom("role").select(["id", "name"]).execute();
      return ids.map((id) => rows.find((r) => r.id === id)!.name);
    };
    const expected = [...SYSTEM, "zz_support", "aa_ops"];

    const person = await createUser({ name: "Many Roles" });
    for (const name of ["guest", "aa_ops", "zz_support", "user", "admin"])
      await db()
        .insertInto("user_role")
        .values({ user_id: person.id, role_id: await roleId(name) })
        .execute();

    const viewer = await signedIn(["super_admin"]);
    const list = await run(() =>
      listLoader(args(request("/dashboard/users?q=Many%20Roles", { cookie: viewer.cookie }))),
    );
    const body = list.body as {
      roles: Listed[];
      assignable: (Listed & { id: string })[];
      defaultRoles: string[];
      rows: { name: string; roles: Listed[] }[];
    };
    expect(body.roles.map((r) => r.name)).toEqual(expected);
    expect(body.assignable.map((r) => r.name)).toEqual(expected);
    expect(body.defaultRoles).toEqual([await roleId("user")]);
    expect(body.rows[0]!.roles.map((r) => r.name)).toEqual([
      "admin",
      "user",
      "guest",
      "zz_support",
      "aa_ops",
    ]);

    const page = await run(() =>
      userLoader(
        args(request(`/dashboard/users/${person.id}`, { cookie: viewer.cookie }), { id: person.id }),
      ),
    );
    const pageRoles = (page.body as { roles: { id: string }[] }).roles;
    expect(await names(pageRoles.map((r) => r.id))).toEqual(expected);

    // An admin is offered fewer roles (never super_admin), in the same order, "user" still the default.
    const admin = await signedIn(["admin"]);
    const asAdmin = (await run(() => listLoader(args(request("/dashboard/users", { cookie: admin.cookie })))))
      .body as typeof body;
    expect(asAdmin.assignable.map((r) => r.name)).toEqual([
      "admin",
      "manager",
      "user",
      "guest",
      "zz_support",
      "aa_ops",
    ]);
    expect(asAdmin.defaultRoles).toEqual([await roleId("user")]);

    const picked = [await roleId("aa_ops"), await roleId("guest"), await roleId("manager")];
    const invited = await run(() =>
      listAction(
        args(
          formRequest(
            "/dashboard/users",
            {
              intent: "invite",
              email: "ordered@example.test",
              roles: picked,
            },
            { cookie: viewer.cookie },
          ),
        ),
      ),
    );
    expect(invited.status).toBe(200);
    const after = (await run(() => listLoader(args(request("/dashboard/users", { cookie: viewer.cookie })))))
      .body as { invitations: { email: string; roles: string[] }[] };
    expect(after.invitations.find((i) => i.email === "ordered@example.test")?.roles).toEqual([
      "Manager",
      "Guest",
      "Zebra Ops",
    ]);
  });
});
