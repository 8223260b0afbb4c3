import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { db } from "../db.server";
import { flushPermissionUse, lastUses, notePermissionUse } from "./permission-use.server";

// Last use for access reviews (decision 048): noted in memory, written by the flush, the later
// time kept whichever instance writes last, and nothing written for a person deleted meanwhile.

beforeAll(setupDatabase);

const at = (iso: string) => Date.parse(iso);
const rows = (userId: string) =>
  db()
    .selectFrom("permission_use")
    .select(["permission", "last_used_at"])
    .where("user_id", "=", userId)
    .execute();

describe("permission use", () => {
  it("writes only at the flush, one row per person and permission, keeping the later time", async () => {
    const { id } = await createUser({ roles: ["manager"] });
    notePermissionUse(id, "user.read", at("2026-11-01T10:00:00Z"));
    notePermissionUse(id, "user.read", at("2026-11-01T11:00:00Z"));
    notePermissionUse(id, "team.read", at("2026-11-01T09:00:00Z"));
    expect(await rows(id)).toEqual([]);
    expect(await flushPermissionUse()).toBe(2);
    expect(await flushPermissionUse()).toBe(0);
    // Another instance's older note arrives after: the newer time stays.
    notePermissionUse(id, "user.read", at("2026-11-01T08:00:00Z"));
    notePermissionUse(id, "team.read", at("2026-11-02T09:00:00Z"));
    await flushPermissionUse();
    const uses = (await lastUses([id])).get(id)!;
    expect(Object.fromEntries(uses)).toEqual({
      "user.read": "2026-11-01T11:00:00.000Z",
      "team.read": "2026-11-02T09:00:00.000Z",
    });
  });

  it("skips a person deleted between the check and the flush, and writes the others", async () => {
    const gone = await createUser({ roles: ["manager"] });
    const kept = await createUser({ roles: ["manager"] });
    notePermissionUse(gone.id, "user.read");
    notePermissionUse(kept.id, "user.read");
    await db().deleteFrom("user").where("id", "=", gone.id).execute();
    await flushPermissionUse();
    expect(await rows(gone.id)).toEqual([]);
    expect(await rows(kept.id)).toHaveLength(1);
  });
});
