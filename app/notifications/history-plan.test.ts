import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db, now } from "../db.server";
import { broadcastHistory } from "./broadcast.server";

// The broadcast history's read counts are counters the triggers keep (migration 012,
// docs/decisions/016-maintained-counts.md): a view never counts notifications, however many
// recipients its notices had.

beforeAll(async () => {
  await setupDatabase();
  const people = await Promise.all(Array.from({ length: 6 }, () => createUser()));
  const team = randomUUID();
  await db()
    .insertInto("team")
    .values({ id: team, name: "Readers", description: "", created_at: now(), updated_at: now() })
    .execute();
  for (const [b, audience] of [{ kind: "all" }, { kind: "teams", ids: [team] }].entries()) {
    const id = randomUUID();
    await db()
      .insertInto("broadcast")
      .values({
        id,
        title: `Notice ${b}`,
        message: "M",
        level: "info",
        link: null,
        audience: JSON.stringify(audience),
        recipient_count: people.length,
        created_by: people[0]!.id,
        created_at: now(),
      })
      .execute();
    await db()
      .insertInto("notification")
      .values(
        people.map((p, i) => ({
          id: randomUUID(),
          user_id: p.id,
          broadcast_id: id,
          title: "T",
          message: "M",
          level: "info",
          link: null,
          read_at: i < 2 + b ? now() : null,
          created_at: now(),
        })),
      )
      .execute();
  }
});

describe("broadcast history plan", () => {
  it("reads the newest notices and their read counters, never the notifications", async () => {
    const { plans, result } = await plansOf(db(), () => broadcastHistory());
    expect(Object.fromEntries(result.map((b) => [b.title, b.reads]))).toEqual({
      "Notice 0": 2,
      "Notice 1": 3,
    });
    expect(badPlans(plans)).toEqual([]);
    for (const { sql } of plans) expect(sql).not.toMatch(/"notification"/);
  });
});
