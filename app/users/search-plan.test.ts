import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { fillForPlans, planUser, searchesOnIndex, searchPlansOf } from "../../test/support/search-plans";
import { listUsers, userListQuery } from "./list.server";

// The users list's `q` runs on the substring indexes (count and page alike), not on a scan of the
// user table (docs/decisions/011-indexed-substring-search.md).

beforeAll(async () => {
  await setupDatabase();
  await fillForPlans();
});

describe("users list search plans", () => {
  it.each([planUser(42).name, planUser(1234).email.slice(3, 12), "nobody-at-all"])(
    "q=%s with status=active uses the indexes",
    async (q) => {
      const plans = await searchPlansOf(() => listUsers(userListQuery.parse({ q, status: "active" })));
      expect(plans.length).toBe(2); // the count and the page
      for (const { sql, plan } of plans)
        expect(
          searchesOnIndex(plan, "user", ["user_name_trgm_idx", "user_email_trgm_idx"]),
          `${sql}\n${plan.join("\n")}`,
        ).toEqual([]);
    },
  );

  it("finds the rows the index points at", async () => {
    const { rows, total } = await listUsers(userListQuery.parse({ q: planUser(1234).name.toUpperCase() }));
    expect(total).toBe(1);
    expect(rows.map((r) => r.id)).toEqual([planUser(1234).id]);
  });
});
