import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresConfig } from "../../db/connection";
import { setupDatabase } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { createInProcessBus } from "./bus.server";
import { createDbEventLog } from "./event-log.server";
import { SYSTEM_EVENT_CHANNEL as CH, type SystemEvent } from "./event-types";
import { createPostgresBus } from "./postgres-bus.server";
import { closeAllStreams, openUserStream } from "./stream.server";

// Two instances' buses on one PostgreSQL schema (as app/events/postgres-bus.test.ts): a client of
// B that was away while A published gets, on reconnecting to B with its Last-Event-ID, every
// event it missed, in order, each once; and ids reach a client in the order they committed.

describe.skipIf(!onPostgres)("events across instances survive a reconnect", () => {
  const url = process.env.DATABASE_URL!;
  const pool = new pg.Pool(postgresConfig(url, { poolSize: 2 }));
  const notify = (channel: string, payloads: string[]) =>
    pool.query("select pg_notify($1, p) from unnest($2::text[]) with ordinality as t(p, i) order by i", [
      channel,
      payloads,
    ]);
  const a = createPostgresBus({ url, local: createInProcessBus(), log: createDbEventLog(), notify });
  const b = createPostgresBus({ url, local: createInProcessBus(), log: createDbEventLog(), notify });

  beforeAll(async () => {
    await setupDatabase();
    await Promise.all([a.ready, b.ready]);
  });
  afterAll(async () => {
    closeAllStreams();
    await Promise.all([a.close(), b.close()]);
    await pool.end();
  });

  const done = (userId: string, taskId: string): SystemEvent => ({
    type: "task-completed",
    userId,
    taskId,
    status: "completed",
  });

  /** A client's view of one stream: the [id, taskId] of each event frame. */
  function client(userId: string, lastEventId?: number) {
    const got: [number, string][] = [];
    let text = "";
    const close = openUserStream(
      userId,
      {
        write(t) {
          text += t;
          for (;;) {
            const end = text.indexOf("\n\n");
            if (end < 0) break;
            const frame = text.slice(0, end);
            text = text.slice(end + 2);
            if (!frame.includes("event: task-completed")) continue;
            got.push([Number(/^id: (\d+)/m.exec(frame)![1]), JSON.parse(frame.split("data: ")[1]!).taskId]);
          }
          return true;
        },
        end() {},
      },
      { bus: b, lastEventId },
    );
    return { got, close };
  }

  it("replays on B what A published while B's client was away, in order, each once", async () => {
    // A fresh stream starts at the newest event it reads; an event committed before that read whose
    // NOTIFY comes after it is one the stream counts as seen (2026-11-30, CI under load). So the
    // client comes back from an event of its own, as a browser does, and the log decides.
    await a.publish(CH, done("away", "warm-up"));
    let from = 0;
    await vi.waitFor(
      async () => {
        from = (await b.newestId("away")) ?? 0;
        expect(from).toBeGreaterThan(0);
      },
      { timeout: 10_000 },
    );
    const first = client("away", from);
    await a.publish(CH, done("away", "seen"));
    // Across instances an event travels by NOTIFY; on a loaded machine that takes more than waitFor's 1 s.
    await vi.waitFor(() => expect(first.got.map(([, t]) => t)).toEqual(["seen"]), { timeout: 10_000 });
    const lastSeen = first.got[0]![0];
    first.close();

    for (const task of ["m1", "m2", "m3"]) await a.publish(CH, done("away", task));
    await a.publish(CH, done("someone-else", "not-yours"));
    const again = client("away", lastSeen);
    // Published on A while B reads the log: it comes once, after the replay.
    await a.publish(CH, done("away", "m4"));
    await vi.waitFor(() => expect(again.got.map(([, t]) => t)).toEqual(["m1", "m2", "m3", "m4"]), {
      timeout: 10_000,
    });
    const ids = again.got.map(([id]) => id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids[0]).toBeGreaterThan(lastSeen);
    await new Promise((r) => setTimeout(r, 100));
    expect(again.got).toHaveLength(4);
  });

  it("delivers events published on both instances at once in id order, none dropped", async () => {
    const watcher = client("busy");
    const tasks = Array.from({ length: 200 }, (_, i) => `t${i}`);
    await Promise.all(tasks.map((task, i) => (i % 2 ? a : b).publish(CH, done("busy", task))));
    await vi.waitFor(() => expect(watcher.got).toHaveLength(200), { timeout: 10_000 });
    const ids = watcher.got.map(([id]) => id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(watcher.got.map(([, t]) => t)).size).toBe(200);
  });
});
