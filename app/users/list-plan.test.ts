import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../db/keyset";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { createTeam } from "../../test/support/teams";
import { db } from "../db.server";
import { listUsers, userListQuery } from "./list.server";
import { USER_SORTS } from "./list-options";

// Every statement the users page sends, for each sort, direction and filter it offers, on the
// first page and from a cursor both ways: an index range, never a full scan or a sort of all
// matching users (test/support/plans.ts says what counts as one). The text search `q` is the
// search index's (migration 010) and is not part of this sweep.

// "manager" is a small role here (its ids are read, and at most 1,000 people sorted: allowed);
// "user" a large one (5,000 people: walked in each index order, no sort allowed).
const FILTERS = [
  {},
  { status: "disabled" },
  { verified: "no" },
  { status: "active", verified: "yes" },
  { role: "manager" },
  { role: "manager", status: "active", verified: "no" },
  { role: "user" },
  { role: "user", status: "disabled", verified: "yes" },
  { role: "admin,manager" },
  { role: "manager,user", verified: "no" },
];

let small: string;
let large: string;

beforeAll(async () => {
  await setupDatabase();
  const ts = new Date().toISOString();
  // Enough people that PostgreSQL's statistics favour lookups by key over reading small tables whole.
  const many = Array.from({ length: 5000 }, (_, i) => ({
    id: randomUUID(),
    name: `Many ${i}`,
    email: `many${i}@plan.test`,
    status: (i % 5 ? "active" : "disabled") as "active" | "disabled",
    created_at: ts,
    updated_at: ts,
  }));
  const userRole = (
    await db().selectFrom("role").select("id").where("name", "=", "user").executeTakeFirstOrThrow()
  ).id;
  for (let i = 0; i < many.length; i += 500) {
    const batch = many.slice(i, i + 500);
    await db().insertInto("user").values(batch).execute();
    await db()
      .insertInto("user_role")
      .values(batch.map((u) => ({ user_id: u.id, role_id: userRole })))
      .execute();
  }
  // A small team (its ids are read and sorted, as a small role's) and one too large for that.
  small = await createTeam(
    db(),
    "Plan small",
    many.slice(0, 40).map((u) => u.id),
  );
  large = await createTeam(
    db(),
    "Plan large",
    many.slice(0, 1500).map((u) => u.id),
  );
  for (let i = 0; i < 30; i++)
    await createUser({
      roles: i % 2 ? ["manager"] : ["user"],
      verified: i % 3 > 0,
      status: i % 4 ? "active" : "disabled",
    });
});

describe("users list query plans", () => {
  for (const sort of USER_SORTS)
    for (const dir of ["asc", "desc"] as const)
      it(`${sort} ${dir}: index ranges only, for every filter and both cursor directions`, async () => {
        for (const filters of FILTERS) {
          const base = userListQuery.parse({ sort, dir, size: 25, ...filters });
          const allowed = {
            sortsAllowed: filters.role === "manager" || filters.role === "admin,manager" ? ["user"] : [],
          };
          const first = await plansOf(db(), () => listUsers(base), allowed);
          expect(badPlans(first.plans), JSON.stringify(filters)).toEqual([]);
          const row = first.result.rows[0];
          if (!row) continue;
          // A cursor at the first row: the page after it, and the (short) one before it.
          const cursor = encodeCursor(`${sort}.${dir}`, { value: row[sort], id: row.id }, 1);
          for (const side of ["after", "before"] as const) {
            const { plans } = await plansOf(db(), () => listUsers({ ...base, [side]: cursor }), allowed);
            expect(badPlans(plans), `${side} ${JSON.stringify(filters)}`).toEqual([]);
          }
        }
      });

  it("a lead within teams: the team's ids found first and sorted, or a large team walked in index order", async () => {
    for (const filters of [{}, { status: "active" }, { role: "user" }, { q: "many1" }]) {
      const q = userListQuery.parse({ sort: "name", dir: "asc", size: 25, ...filters });
      const few = await plansOf(db(), () => listUsers(q, [small]), { sortsAllowed: ["user"] });
      expect(badPlans(few.plans), JSON.stringify(filters)).toEqual([]);
      expect(few.result.rows.length).toBeGreaterThan(0);
      // The page's rows are looked up by the team's ids: walking every person for 40 was the bench's 50 ms.
      const pages = few.plans.filter((p) => p.sql.includes('order by "user"'));
      expect(pages.length).toBeGreaterThan(0);
      for (const p of pages) expect(p.sql, JSON.stringify(filters)).toMatch(/"user"\."id" in \(/);
      if (filters.q) continue;
      const walked = await plansOf(db(), () => listUsers(q, [large]), { sortsAllowed: [] });
      expect(badPlans(walked.plans), `large ${JSON.stringify(filters)}`).toEqual([]);
    }
  });
});
