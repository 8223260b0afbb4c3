import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db } from "../db.server";
import { loader } from "../routes/dashboard.logs/route";
import { type AuditQuery, auditQuery, auditRowsAfter, filteredAudit, listAudit } from "./query.server";

// The log's keyset pages and the export's batches against one ORDER BY of the same rows, with
// many rows sharing a time; and the plan of every statement: an index range, never a full scan.

const TIMES = ["2026-03-01T08:00:00.000Z", "2026-03-02T08:00:00.000Z", "2026-03-02T09:30:00.000Z"];

beforeAll(async () => {
  await setupDatabase();
  const rows = Array.from({ length: 137 }, (_, i) => ({
    id: randomUUID(),
    actor_id: null,
    actor_email: "keyset@example.test",
    action: i % 3 ? "user.update" : "auth.login.failed",
    target_type: "user",
    target_id: i % 4 ? "u-1" : "u-2",
    details: null,
    ip: null,
    user_agent: null,
    created_at: TIMES[i % 3]!,
  }));
  await db().insertInto("audit_log").values(rows).execute();
});

const FILTERS = [
  {},
  { action: "user.update" },
  { target: "user:u-2" },
  { from: "2026-03-02", to: "2026-03-02" },
  { action: "auth.login.failed", from: "2026-03-01", to: "2026-03-01" },
  { target: "user:u-1", action: "user.update" },
];

async function fullOrder(q: AuditQuery) {
  const rows = await filteredAudit(q)
    .select("id")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map((r) => r.id);
}

describe("audit log keyset pages", () => {
  it("walk forward and back through every filter in the full order", async () => {
    for (const filters of FILTERS) {
      const q = auditQuery.parse({ size: 10, ...filters });
      const forward: { ids: string[]; start: number }[] = [];
      let page = await listAudit(q);
      forward.push({ ids: page.rows.map((r) => r.id), start: page.start });
      while (page.next) {
        page = await listAudit({ ...q, after: page.next });
        forward.push({ ids: page.rows.map((r) => r.id), start: page.start });
      }
      const backward = [forward.at(-1)!];
      while (page.prev) {
        page = await listAudit({ ...q, before: page.prev });
        backward.unshift({ ids: page.rows.map((r) => r.id), start: page.start });
      }
      expect(
        forward.flatMap((p) => p.ids),
        JSON.stringify(filters),
      ).toEqual(await fullOrder(q));
      expect(forward.map((p) => p.start)).toEqual(forward.map((_, i) => 1 + 10 * i));
      expect(backward).toEqual(forward);
    }
  });

  it("the export's batches are the same walk", async () => {
    for (const filters of FILTERS) {
      const q = auditQuery.parse(filters);
      const seen: string[] = [];
      for (let after = null as { value: string; id: string } | null; ; ) {
        const rows = await auditRowsAfter(q, after, 7);
        seen.push(...rows.map((r) => r.id));
        if (rows.length < 7) break;
        after = { value: rows.at(-1)!.created_at, id: rows.at(-1)!.id };
      }
      expect(seen).toEqual(await fullOrder(q));
    }
  });

  it("a malformed or tampered cursor, or an old ?page=N, opens the newest page", async () => {
    const admin = await signedIn(["admin"]);
    const open = async (qs: string) => {
      const out = await run(() => loader(args(request(`/dashboard/logs?${qs}`, { cookie: admin.cookie }))));
      expect(out.status, qs).toBe(200);
      return (out.body as { rows: { id: string }[] }).rows.map((r) => r.id);
    };
    const first = await open("");
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    for (const cursor of [
      "%%%",
      b64({ k: "created_at.desc", v: "2026-02-30T00:00:00.000Z", id: "x", n: 2 }),
      b64({ k: "created_at.desc", v: "soon", id: "x", n: 2 }),
      b64({ k: "name.asc", v: TIMES[0], id: "x", n: 2 }),
      b64({ k: "created_at.desc", v: TIMES[0], id: "\u0000", n: 2 }),
    ]) {
      expect(await open(`after=${encodeURIComponent(cursor)}`)).toEqual(first);
      expect(await open(`before=${encodeURIComponent(cursor)}`)).toEqual(first);
    }
    expect(await open("page=5")).toEqual(first);
  });
});

describe("audit log query plans", () => {
  // The text filters (actor, target by name) are the search index's (migration 010).
  it("every filter, first page and from a cursor both ways, and the export's batch: index ranges", async () => {
    for (const filters of FILTERS) {
      const q = auditQuery.parse({ size: 10, ...filters });
      const first = await plansOf(db(), () => listAudit(q));
      expect(badPlans(first.plans), JSON.stringify(filters)).toEqual([]);
      const next = first.result.next;
      if (!next) continue;
      for (const side of ["after", "before"] as const) {
        const { plans } = await plansOf(db(), () => listAudit({ ...q, [side]: next }));
        expect(badPlans(plans), `${side} ${JSON.stringify(filters)}`).toEqual([]);
      }
      const row = first.result.rows.at(-1)!;
      const batch = await plansOf(db(), () => auditRowsAfter(q, { value: row.created_at, id: row.id }, 2000));
      expect(badPlans(batch.plans), `export ${JSON.stringify(filters)}`).toEqual([]);
    }
  });
});
