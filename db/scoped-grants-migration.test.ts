import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { createUser, setupDatabase } from "../test/helpers";
import { keptCounts, oldCounts } from "../test/support/old-counts";
import { migrateToLatest, withSchemaChangeLock } from "./migrate";
import { down } from "./migrations/036_scoped_grants";

beforeAll(setupDatabase);

const ts = () => new Date().toISOString();

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

describe("migration 036: grants get an id, a team and an expiry", () => {
  it("keeps every role a person held, as a global grant, and the role counters stay kept", async () => {
    const a = await createUser({ roles: ["admin", "user"] });
    const b = await createUser({ roles: ["manager"] });
    await withSchemaChangeLock(db(), () => down(db() as never));
    await sql`delete from kysely_migration where name = '036_scoped_grants'`.execute(db());
    expect(await migrateToLatest(db())).toEqual(["036_scoped_grants"]);

    const rows = await db()
      .selectFrom("user_role")
      .selectAll()
      .where("user_id", "in", [a.id, b.id])
      .orderBy("user_id")
      .execute();
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.team_id).toBeNull();
      expect(row.expires_at).toBeNull();
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    expect(await keptCounts(db())).toEqual(await oldCounts(db()));

    // The counter triggers came back with the table; a grant within a team is no member of the role.
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Sales", description: "", created_at: ts(), updated_at: ts() })
      .execute();
    await db()
      .insertInto("user_role")
      .values({ user_id: b.id, role_id: await roleId("admin"), team_id: team, granted_at: ts() })
      .execute();
    expect(await keptCounts(db())).toEqual(await oldCounts(db()));
  });

  it("one global grant per role, and one per role and team; the same role in two teams is two grants", async () => {
    const u = await createUser({ roles: ["user"] });
    const admin = await roleId("admin");
    const [sales, marketing] = [randomUUID(), randomUUID()];
    for (const [id, name] of [
      [sales, "S2"],
      [marketing, "M2"],
    ] as const)
      await db()
        .insertInto("team")
        .values({ id, name, description: "", created_at: ts(), updated_at: ts() })
        .execute();
    await db().insertInto("user_role").values({ user_id: u.id, role_id: admin, team_id: sales }).execute();
    await db()
      .insertInto("user_role")
      .values({ user_id: u.id, role_id: admin, team_id: marketing })
      .execute();
    await db().insertInto("user_role").values({ user_id: u.id, role_id: admin }).execute();
    await expect(
      db().insertInto("user_role").values({ user_id: u.id, role_id: admin, team_id: sales }).execute(),
    ).rejects.toThrow();
    await expect(
      db()
        .insertInto("user_role")
        .values({ user_id: u.id, role_id: await roleId("user") })
        .execute(),
    ).rejects.toThrow();
    // A team's deletion takes its grants with it.
    await db().deleteFrom("team").where("id", "=", sales).execute();
    const left = await db().selectFrom("user_role").select("team_id").where("user_id", "=", u.id).execute();
    expect(left.map((r) => r.team_id).sort()).toEqual([marketing, null, null].sort());
  });
});
