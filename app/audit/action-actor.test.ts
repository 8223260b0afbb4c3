import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { dialectOf } from "../../db/connection";
import { setupDatabase } from "../../test/helpers";
import { badPlans, captureQueries, plansOf } from "../../test/support/plans";
import { db } from "../db.server";
import { ACTOR_HITS_WITH_ACTION, type AuditQuery, auditQuery, listAudit } from "./query.server";

// The log filtered by action and actor (docs/decisions/023-list-paths.md): an actor text with
// more index hits than ACTOR_HITS_WITH_ACTION is tested along the action's index range, which
// carries the actor's email and id (018_list_paths); a rarer one is looked up first. Either way
// the pages hold exactly the rows the plain filter gives, in the log's order.

const DENSE = ACTOR_HITS_WITH_ACTION * 2;
const ACTIONS = ["auth.login.failed", "user.update", "auth.logout"];

beforeAll(async () => {
  await setupDatabase();
  const rows = Array.from({ length: DENSE + 60 }, (_, i) => ({
    id: randomUUID(),
    actor_id: null,
    actor_email: i < DENSE ? `crowd${i}@dense.test` : `solo${i % 3}@rare.test`,
    action: ACTIONS[i % 3]!,
    target_type: "user",
    target_id: `u-${i}`,
    details: null,
    ip: null,
    user_agent: null,
    // Many share a second, so pages end inside ties.
    created_at: new Date(Date.UTC(2026, 2, 1, 8, 0, Math.floor(i / 7))).toISOString(),
  }));
  for (let i = 0; i < rows.length; i += 200)
    await db()
      .insertInto("audit_log")
      .values(rows.slice(i, i + 200))
      .execute();
});

/** The same filter the plain way: every row tested, then sorted. */
async function expected(action: string, actor: string) {
  const rows = await db()
    .selectFrom("audit_log")
    .select(["id", "actor_email"])
    .where("action", "=", action)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.filter((r) => r.actor_email?.toLowerCase().includes(actor.toLowerCase())).map((r) => r.id);
}

async function walk(q: AuditQuery) {
  const ids: string[] = [];
  let page = await listAudit(q);
  ids.push(...page.rows.map((r) => r.id));
  while (page.next) {
    page = await listAudit({ ...q, after: page.next });
    ids.push(...page.rows.map((r) => r.id));
  }
  return ids;
}

describe("the log filtered by action and actor", () => {
  it.each([
    ["auth.login.failed", "dense.test"],
    ["user.update", "CROWD1"],
    ["auth.logout", "rare.test"],
    ["auth.login.failed", "solo1@"],
    ["user.update", "nobody-at-all"],
  ])("action=%s actor=%s pages through exactly the matching rows", async (action, actor) => {
    const want = await expected(action, actor);
    expect(await walk(auditQuery.parse({ action, actor, size: 10 }))).toEqual(want);
  });

  it("walks the action's range for a common actor text, looks a rare one up: index ranges on both engines", async () => {
    // The log's own reads. How the names' search reads `user` is decision 011's (its plan tests
    // fill the table so PostgreSQL's planner can tell a trigram lookup from a scan; this one
    // holds a handful of people).
    const onLog = (plans: Awaited<ReturnType<typeof plansOf>>["plans"]) =>
      badPlans(plans).flatMap((p) => p.problems.filter((problem) => problem.includes("audit_log")));
    for (const actor of ["dense.test", "rare.test", "nobody-at-all"]) {
      const q = auditQuery.parse({ action: "auth.login.failed", actor, size: 10 });
      const { plans } = await plansOf(db(), () => listAudit(q));
      expect(onLog(plans), actor).toEqual([]);
      const next = (await listAudit(q)).next;
      if (!next) continue;
      const after = await plansOf(db(), () => listAudit({ ...q, after: next }));
      expect(onLog(after.plans), `${actor}, next page`).toEqual([]);
    }
    if (dialectOf(db() as never) !== "sqlite") return;
    // SQLite: the common text leaves the index hits (more than the threshold) for the walk,
    // whose plan reads the action's range of the index that carries the actor's email.
    const common = await captureQueries(db(), () =>
      listAudit(auditQuery.parse({ action: "auth.login.failed", actor: "dense.test" })),
    );
    const list = common.queries.find((c) => c.sql.includes('from "audit_log"'))!;
    expect(list.sql).not.toMatch(/"audit_log"\."rowid" in/);
    const { plans } = await plansOf(db(), () =>
      listAudit(auditQuery.parse({ action: "auth.login.failed", actor: "dense.test" })),
    );
    expect(plans.map((p) => p.text).join("\n")).toMatch(/audit_log_action_actor_idx \(action=\?\)/);
    const rare = await captureQueries(db(), () =>
      listAudit(auditQuery.parse({ action: "auth.login.failed", actor: "rare.test" })),
    );
    expect(rare.queries.find((c) => c.sql.includes('from "audit_log"'))!.sql).toMatch(
      /"audit_log"\."rowid" in/,
    );
  });
});
