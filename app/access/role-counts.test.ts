import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db, now } from "../db.server";
import { invalidateRoles } from "./role-cache.server";
import { listRoles, roleMemberCounts } from "./roles-admin.server";

// The access page's member count per role comes from counters the user_role triggers keep
// (migration 018_list_paths), not from grouping every link: the same numbers, at any size.

beforeAll(setupDatabase);

/** What grouping the links says, for every role (0 for a role nobody holds). */
async function grouped() {
  const roles = await db().selectFrom("role").select("id").execute();
  const rows = await db()
    .selectFrom("user_role")
    .select(["role_id", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("role_id")
    .execute();
  const byRole = new Map(rows.map((r) => [r.role_id, Number(r.n)]));
  return new Map(roles.map((r) => [r.id, byRole.get(r.id) ?? 0]));
}

async function counted() {
  const roles = await db().selectFrom("role").select("id").execute();
  const counts = await roleMemberCounts(roles.map((r) => r.id));
  return new Map(roles.map((r) => [r.id, counts.get(r.id) ?? 0]));
}

async function newRole(name: string) {
  const id = randomUUID();
  const ts = now();
  await db().insertInto("role").values({ id, name, label: name, created_at: ts, updated_at: ts }).execute();
  invalidateRoles();
  return id;
}

describe("role member counts", () => {
  it("follow links added, moved and removed, a user's deletion and a role's deletion", async () => {
    const role = await newRole("counted_role");
    const people = await Promise.all([1, 2, 3].map(() => createUser({ roles: ["user"] })));
    await db()
      .insertInto("user_role")
      .values(people.map((p) => ({ user_id: p.id, role_id: role })))
      .execute();
    expect(await counted()).toEqual(await grouped());
    expect((await roleMemberCounts([role])).get(role)).toBe(3);

    const other = await newRole("other_role");
    await db()
      .updateTable("user_role")
      .set({ role_id: other })
      .where("user_id", "=", people[0]!.id)
      .where("role_id", "=", role)
      .execute();
    await db().deleteFrom("user").where("id", "=", people[1]!.id).execute();
    expect(await counted()).toEqual(await grouped());
    expect((await roleMemberCounts([role, other])).get(role)).toBe(1);

    await db().deleteFrom("role").where("id", "=", role).execute();
    invalidateRoles();
    expect(await counted()).toEqual(await grouped());
    // The role's counter went with its last link.
    const left = await db().selectFrom("stat_count").select("n").where("scope", "=", role).execute();
    expect(left).toEqual([]);
  });

  it("are what the access page lists, read by primary key without touching user_role", async () => {
    const { result, plans } = await plansOf(db(), () => listRoles());
    const expected = await grouped();
    for (const r of result) expect(r.users).toBe(expected.get(r.id));
    expect(badPlans(plans)).toEqual([]);
    expect(plans.filter((p) => p.sql.includes('"user_role"'))).toEqual([]);
  });
});
