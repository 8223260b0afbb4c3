import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db } from "../db.server";
import { userActivity } from "./detail.server";

// The user page's activity: the newest 20 entries by or about the person, merged from two index
// ranges, equal to the plain OR query's answer; and no statement reads a large table whole.
// Its other lists are bounded by nature: teams (admins name them), sessions (they expire, and
// signing in is rate limited), tasks (the newest 10).

const TIMES = ["2026-05-01T00:00:00.000Z", "2026-05-02T00:00:00.000Z", "2026-05-03T00:00:00.000Z"];
let person = "";

beforeAll(async () => {
  await setupDatabase();
  person = (await createUser()).id;
  const other = (await createUser()).id;
  const entry = (i: number, actor: string | null, target: string | null) => ({
    id: randomUUID(),
    actor_id: actor,
    actor_email: null,
    action: "user.update",
    target_type: target ? "user" : null,
    target_id: target,
    details: null,
    ip: null,
    user_agent: null,
    created_at: TIMES[i % 3]!,
  });
  const rows = [
    ...Array.from({ length: 15 }, (_, i) => entry(i, other, person)),
    ...Array.from({ length: 15 }, (_, i) => entry(i, person, other)),
    ...Array.from({ length: 6 }, (_, i) => entry(i, person, person)),
    ...Array.from({ length: 15 }, (_, i) => entry(i, other, other)),
  ];
  await db().insertInto("audit_log").values(rows).execute();
});

const viewer = { id: "viewer", isSuperAdmin: true, permissions: new Set<string>() };

describe("user page activity", () => {
  it("the newest 20 entries by or about the person, each once", async () => {
    const expected = await db()
      .selectFrom("audit_log")
      .select("id")
      .where(sql<boolean>`(target_type = 'user' and target_id = ${person}) or actor_id = ${person}`)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(20)
      .execute();
    const { audit } = await userActivity(viewer, person);
    expect(audit!.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  });

  it("reads index ranges only", async () => {
    const { plans } = await plansOf(db(), () => userActivity(viewer, person), {
      sortsAllowed: ["team_member", "session"],
    });
    expect(badPlans(plans)).toEqual([]);
  });
});
