import { beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../db/keyset";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db } from "../db.server";
import { listUsers, userListQuery } from "./list.server";
import { USER_SORTS } from "./list-options";

// Every statement the users page sends, for each sort, direction and filter it offers, on the
// first page and from a cursor both ways: an index range, never a full scan or a sort of all
// matching users (test/support/plans.ts says what counts as one). The text search `q` is the
// search index's (migration 010) and is not part of this sweep.

const FILTERS = [
  {},
  { status: "disabled" },
  { verified: "no" },
  { status: "active", verified: "yes" },
  { role: "manager" },
  { role: "manager", status: "active", verified: "no" },
];

beforeAll(async () => {
  await setupDatabase();
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
          const first = await plansOf(db(), () => listUsers(base));
          expect(badPlans(first.plans), JSON.stringify(filters)).toEqual([]);
          const row = first.result.rows[0];
          if (!row) continue;
          // A cursor at the first row: the page after it, and the (short) one before it.
          const cursor = encodeCursor(`${sort}.${dir}`, { value: row[sort], id: row.id }, 1);
          for (const side of ["after", "before"] as const) {
            const { plans } = await plansOf(db(), () => listUsers({ ...base, [side]: cursor }));
            expect(badPlans(plans), `${side} ${JSON.stringify(filters)}`).toEqual([]);
          }
        }
      });
});
