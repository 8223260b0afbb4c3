import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { fillForPlans, planUser, searchesOnIndex, searchPlansOf } from "../../test/support/search-plans";
import { searchUsers } from "./teams.server";

// The "add member" picker searches accounts on the substring indexes, not by reading the user
// table (docs/decisions/011-indexed-substring-search.md).

const admin = { isSuperAdmin: true, permissions: [] };

beforeAll(async () => {
  await setupDatabase();
  await fillForPlans();
});

describe("member search plan", () => {
  it.each([planUser(42).name, planUser(1234).email.slice(3, 12), "nobody-at-all"])(
    "%s uses the indexes",
    async (q) => {
      const plans = await searchPlansOf(() => searchUsers(admin, q, { excludeTeam: "plan-team-1" }));
      expect(plans.length).toBe(1);
      for (const { sql, plan } of plans)
        expect(
          searchesOnIndex(plan, "user", ["user_name_trgm_idx", "user_email_trgm_idx"]),
          `${sql}\n${plan.join("\n")}`,
        ).toEqual([]);
    },
  );
});
