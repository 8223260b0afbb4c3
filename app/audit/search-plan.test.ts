import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import {
  fillForPlans,
  planTeam,
  planUser,
  searchesOnIndex,
  searchPlansOf,
} from "../../test/support/search-plans";
import { auditQuery, listAudit } from "./query.server";

// The log's actor and target filters find their rows through the substring indexes (of the log
// and of the names it refers to), not by reading the log (docs/decisions/011-*.md). The CSV
// export filters with the same filteredAudit.

beforeAll(async () => {
  await setupDatabase();
  await fillForPlans();
});

const list = (q: Record<string, string>) => () => listAudit(auditQuery.parse(q));

describe("audit log search plans", () => {
  it.each([planUser(42).email, planUser(1234).name, "nobody-at-all"])(
    "actor=%s uses the indexes",
    async (actor) => {
      const [search, ...more] = await searchPlansOf(list({ actor }));
      expect(more).toEqual([]);
      const { sql, plan } = search!;
      const message = `${sql}\n${plan.join("\n")}`;
      expect(searchesOnIndex(plan, "audit_log", ["audit_log_actor_email_trgm_idx"]), message).toEqual([]);
      expect(searchesOnIndex(plan, "user", ["user_name_trgm_idx"]), message).toEqual([]);
    },
  );

  it.each([planUser(2345).name, planTeam(17).name, "plan-user-99", "nobody-at-all"])(
    "target=%s uses the indexes",
    async (target) => {
      const [search, ...more] = await searchPlansOf(list({ target }));
      expect(more).toEqual([]);
      const { sql, plan } = search!;
      const message = `${sql}\n${plan.join("\n")}`;
      expect(searchesOnIndex(plan, "audit_log", ["audit_log_target_id_trgm_idx"]), message).toEqual([]);
      expect(searchesOnIndex(plan, "user", ["user_name_trgm_idx", "user_email_trgm_idx"]), message).toEqual(
        [],
      );
      expect(searchesOnIndex(plan, "team", ["team_name_trgm_idx"]), message).toEqual([]);
    },
  );
});
