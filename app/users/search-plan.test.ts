import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { fillForPlans, searchesOnIndex, searchPlansOf } from "../../test/support/search-plans";
import { listUsers, userListQuery } from "./list.server";

// The users list's `q` runs on the substring indexes (count and page alike), not on a scan of the
// user table (docs/decisions/011-indexed-substring-search.md).

beforeAll(async () => {
  await setupDatabase();
  await fillForPlans();
});

describe("users list search plans", () => {
  it.each(["person12", "Person 42", "nobody-at-all"])(
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
    const { rows, total } = await listUsers(userListQuery.parse({ q: "PERSON12", status: "active" }));
    expect(total).toBe(111 - 6); // person12, 120-129, 1200-1299; every 20th is disabled
    expect(rows.every((r) => r.email.startsWith("person12"))).toBe(true);
  });
});
