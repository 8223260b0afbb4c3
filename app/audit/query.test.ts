import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { loader } from "../routes/dashboard.logs/route";

beforeAll(async () => {
  await setupDatabase();
  const base = Date.parse("2026-01-10T12:00:00.000Z");
  const rows = Array.from({ length: 120 }, (_, i) => ({
    id: randomUUID(),
    actor_id: null,
    actor_email: i % 2 ? "alice@example.test" : "bob@example.test",
    action: i % 3 ? "user.update" : "auth.login.failed",
    target_type: "user",
    target_id: i % 4 ? "u-1" : "u-2",
    details: JSON.stringify({ before: { name: `n${i}` }, after: { name: `n${i + 1}` } }),
    ip: "203.0.113.1",
    user_agent: "test",
    created_at: new Date(base - i * 3600_000).toISOString(),
  }));
  await db().insertInto("audit_log").values(rows).execute();
});

async function list(cookie: string, qs: string) {
  const out = await run(() => loader(args(request(`/dashboard/logs?${qs}`, { cookie }))));
  return out.body as {
    rows: { action: string; actor: { email: string }; createdAt: string }[];
    next: string | null;
  };
}

describe("audit log page", () => {
  it("needs log.read", async () => {
    const manager = await signedIn(["manager"]);
    expect(
      (await run(() => loader(args(request("/dashboard/logs", { cookie: manager.cookie }))))).status,
    ).toBe(403);
  });

  it("lists newest first with filters and pages", async () => {
    const admin = await signedIn(["admin"]);
    const page1 = await list(admin.cookie, "actor=alice@example.test&size=20");
    expect(page1.rows).toHaveLength(20);
    expect(page1.rows.every((r) => r.actor.email === "alice@example.test")).toBe(true);
    expect(page1.next).not.toBeNull();
    const times = page1.rows.map((r) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    const failed = await list(admin.cookie, "action=auth.login.failed&size=200&actor=bob@example.test");
    expect(failed.rows.every((r) => r.action === "auth.login.failed")).toBe(true);
    expect(failed.rows).toHaveLength(20); // i % 3 == 0 and i even: i % 6 == 0 → 20 of 120

    const byTarget = await list(admin.cookie, "target=user:u-2&size=200&actor=bob@example.test");
    expect(byTarget.rows).toHaveLength(30);

    const oneDay = await list(
      admin.cookie,
      "from=2026-01-10&to=2026-01-10&size=200&actor=alice@example.test",
    );
    expect(oneDay.rows.every((r) => r.createdAt.startsWith("2026-01-10"))).toBe(true);
    expect(oneDay.rows).toHaveLength(6); // hours 12..0 with odd i: i = 1,3,...,11

    const page2 = await list(admin.cookie, `actor=alice@example.test&size=20&after=${page1.next}`);
    const last = await list(admin.cookie, `actor=alice@example.test&size=20&after=${page2.next}`);
    expect(last.rows).toHaveLength(20);
    expect(last.next).toBeNull();
  });

  it("ignores a malformed page or size instead of failing", async () => {
    const admin = await signedIn(["admin"]);
    const out = await list(admin.cookie, "size=abc&page=-1");
    expect(out.rows.length).toBeGreaterThan(0);
  });

  it("answers 400 for a date that is not a real day (never a 500, never silently unfiltered)", async () => {
    const admin = await signedIn(["admin"]);
    for (const qs of [
      "to=9999-99-99",
      "from=2026-02-30",
      "from=yesterday",
      "to=2026-13-01",
      "from=0000-00-00",
    ]) {
      const out = await run(() => loader(args(request(`/dashboard/logs?${qs}`, { cookie: admin.cookie }))));
      expect(out.status, qs).toBe(400);
      expect(JSON.stringify(out.body)).toMatch(/date/i);
    }
    const leap = await list(admin.cookie, "from=2024-02-29&to=2024-02-29");
    expect(leap.rows).toEqual([]);
  });

  // PostgreSQL text cannot hold or compare NUL: these were a 500 there.
  it.each(["actor=a%00", "action=%00", "target=user:%00", "target=%00:x"])(
    "answers 400 for NUL in a text filter (%s)",
    async (qs) => {
      const admin = await signedIn(["admin"]);
      const out = await run(() => loader(args(request(`/dashboard/logs?${qs}`, { cookie: admin.cookie }))));
      expect(out.status).toBe(400);
      expect(JSON.stringify(out.body)).toMatch(/NUL/);
    },
  );
});
