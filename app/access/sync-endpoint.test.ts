import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { action } from "../routes/api.access.sync";

beforeAll(setupDatabase);

const post = (cookie?: string) =>
  run(() => action(args(request("/api/access/sync", { method: "POST", cookie }))));

async function otherTables() {
  return {
    role: await db().selectFrom("role").selectAll().orderBy("id").execute(),
    role_permission: await db()
      .selectFrom("role_permission")
      .selectAll()
      .orderBy("role_id")
      .orderBy("permission_id")
      .execute(),
    menu_item: await db().selectFrom("menu_item").selectAll().orderBy("id").execute(),
    user: await db().selectFrom("user").select(["id", "name", "email"]).orderBy("id").execute(),
  };
}

describe("POST /api/access/sync", () => {
  it("answers 401 without a session and 403 for an admin", async () => {
    expect(await post()).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    const admin = await signedIn(["admin"]);
    expect(await post(admin.cookie)).toMatchObject({ status: 403, body: { error: "forbidden" } });
  });

  it("inserts exactly the missing permissions, then none", async () => {
    const { cookie } = await signedIn(["super_admin"]);
    await db().deleteFrom("permission").where("key", "in", ["log.read", "team.write"]).execute();
    const before = await otherTables();

    const first = await post(cookie);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ inserted: ["log.read", "team.write"], total: 10 });

    const second = await post(cookie);
    expect(second.body).toEqual({ inserted: [], total: 10 });

    const after = await otherTables();
    // Deleting a permission cascaded its links away; sync must not bring those back.
    expect(after).toEqual(before);

    const audit = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "access.sync")
      .execute();
    expect(audit).toHaveLength(2);
    expect(JSON.parse(audit[0]!.details!)).toMatchObject({ inserted: expect.any(Array) });
  });
});
