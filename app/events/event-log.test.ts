import { beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { createDb } from "../../db/connection";
import { setupDatabase } from "../../test/helpers";
import { db } from "../db.server";
import { runDailyCleanup } from "../server/cleanup.server";
import {
  createDbEventLog,
  EVENT_WINDOW_MS,
  MAX_EVENTS_PER_USER,
  pruneEventLog,
  REPLAY_LIMIT,
} from "./event-log.server";
import type { SystemEvent } from "./event-types";

beforeAll(setupDatabase);

const done = (userId: string, taskId: string): SystemEvent => ({
  type: "task-completed",
  userId,
  taskId,
  status: "completed",
});
const taskIds = (events: { event: SystemEvent }[]) =>
  events.map(({ event }) => (event.type === "task-completed" ? event.taskId : event.type));

/** Rows written behind the log's back, `hoursAgo` old, as a day of traffic would leave them. */
async function oldRows(userId: string, count: number, hoursAgo: number) {
  const created_at = new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
  for (let i = 0; i < count; i += 500) {
    const rows = Array.from({ length: Math.min(500, count - i) }, (_, j) => ({
      user_id: userId,
      type: "task-completed",
      data: JSON.stringify(done(userId, `old-${i + j}`)),
      created_at,
    }));
    await db().insertInto("event_log").values(rows).execute();
  }
}

describe("event log", () => {
  it("numbers events in the order they were published, and replays one user's after an id, in order", async () => {
    const log = createDbEventLog();
    const [first] = await log.append([done("log-a", "a0")]);
    // Published in one tick, written together: the ids keep the order of the calls.
    const [x, y, z] = await Promise.all([
      log.append([done("log-a", "a1")]),
      log.append([done("log-b", "b1")]),
      log.append([done("log-a", "a2"), done("log-a", "a3")]),
    ]);
    const ids = [first!, ...x!, ...y!, ...z!].map((l) => l.id);
    expect(ids).toEqual([...ids].sort((p, q) => p - q));
    expect(new Set(ids).size).toBe(ids.length);

    const replay = await log.replay("log-a", first!.id);
    expect(replay.kind).toBe("events");
    if (replay.kind !== "events") return;
    expect(taskIds(replay.events)).toEqual(["a1", "a2", "a3"]);
    expect(replay.events[0]!.event).toEqual(done("log-a", "a1"));
    // Another user's events never come with it.
    expect(await log.replay("log-b", first!.id)).toEqual({ kind: "events", events: [y![0]] });
  });

  it("writes a broadcast to thousands in a few statements, not one a recipient", async () => {
    let inserts = 0;
    const counting = createDb(process.env.DATABASE_URL!, {
      log: (e) => {
        if (/insert into "event_log"/.test(e.query.sql)) inserts++;
      },
    });
    // Closed at the end of the file: 1,200 events start a prune on the way, in the background.
    onTestFinished(() => new Promise((r) => setTimeout(r, 200)).then(() => counting.destroy()));
    const log = createDbEventLog(() => counting);
    const events = Array.from({ length: 1_200 }, (_, i) => done(`crowd-${i}`, "notice"));
    const logged = await log.append(events);
    expect(logged).toHaveLength(1_200);
    expect(inserts).toBe(3); // 500 rows a statement
  });

  it("asks a client to reconcile for an id it cannot have seen: past the newest, or beyond what one replay sends", async () => {
    const log = createDbEventLog();
    const [last] = await log.append([done("log-c", "c1")]);
    expect(await log.replay("log-c", last!.id + 1_000)).toEqual({ kind: "reconcile", newest: last!.id });
    await log.append(Array.from({ length: REPLAY_LIMIT + 1 }, (_, i) => done("log-c", `many-${i}`)));
    const replay = await log.replay("log-c", last!.id);
    expect(replay.kind).toBe("reconcile");
  });

  it("prunes past the 24 h window (the daily cleanup too); a client that saw a pruned id reconciles", async () => {
    // Ids follow time in a real log; rows written by earlier tests (newer, lower ids) would not.
    await db().deleteFrom("event_log").execute();
    const log = createDbEventLog();
    await oldRows("log-d", 3, 25);
    const [seen] = await db()
      .selectFrom("event_log")
      .select("id")
      .where("user_id", "=", "log-d")
      .orderBy("id")
      .execute();
    const [kept] = await log.append([done("log-d", "fresh")]);
    expect((await log.replay("log-d", seen!.id)).kind).toBe("events");

    const { events } = await runDailyCleanup();
    expect(events).toBeGreaterThanOrEqual(3);
    const left = await db().selectFrom("event_log").select("id").where("user_id", "=", "log-d").execute();
    expect(left.map((r) => r.id)).toEqual([kept!.id]);
    // Its events after `seen` are partly gone: the replay says so instead of sending the rest.
    expect(await log.replay("log-d", seen!.id)).toEqual({ kind: "reconcile", newest: kept!.id });
    // Within the window, a client that saw the fresh one gets nothing more, no reconcile.
    expect(await log.replay("log-d", kept!.id)).toEqual({ kind: "events", events: [] });
    expect(EVENT_WINDOW_MS).toBe(86_400_000);
  });

  it("keeps a user's newest 10,000 events, others untouched", { timeout: 60_000 }, async () => {
    await oldRows("log-busy", MAX_EVENTS_PER_USER + 5, 1);
    await oldRows("log-calm", 5, 1);
    const ids = await db()
      .selectFrom("event_log")
      .select("id")
      .where("user_id", "=", "log-busy")
      .orderBy("id")
      .execute();
    expect(await pruneEventLog()).toBe(5); // nothing here is past the window
    const left = await db()
      .selectFrom("event_log")
      .select((eb) => [eb.fn.min("id").as("lo"), eb.fn.countAll<number>().as("n")])
      .where("user_id", "=", "log-busy")
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(MAX_EVENTS_PER_USER);
    expect(Number(left.lo)).toBe(ids[5]!.id);
    const calm = await db().selectFrom("event_log").select("id").where("user_id", "=", "log-calm").execute();
    expect(calm).toHaveLength(5);
    // One who last saw a pruned id reconciles.
    const log = createDbEventLog();
    expect((await log.replay("log-busy", ids[2]!.id)).kind).toBe("reconcile");
  });

  it("prunes on the way too: a user who gains 1,000 events is cut back to the cap without the daily run", {
    timeout: 60_000,
  }, async () => {
    await oldRows("log-way", MAX_EVENTS_PER_USER, 1);
    const log = createDbEventLog();
    await log.append(Array.from({ length: 1_000 }, (_, i) => done("log-way", `new-${i}`)));
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom("event_log")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("user_id", "=", "log-way")
            .executeTakeFirstOrThrow()
        ).n,
      );
    await vi.waitFor(async () => expect(await count()).toBe(MAX_EVENTS_PER_USER), { timeout: 10_000 });
  });
});
