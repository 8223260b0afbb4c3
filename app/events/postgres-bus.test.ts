import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresConfig } from "../../db/connection";
import { setupDatabase } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { createInProcessBus } from "./bus.server";
import { registerCache, registerSessionStreamEnder, registerStreamEnder } from "./cluster.server";
import { createDbEventLog } from "./event-log.server";
import { SYSTEM_EVENT_CHANNEL as CH, type SystemEvent } from "./event-types";
import { createPostgresBus, encode, MAX_PAYLOAD_BYTES, notifyChannel } from "./postgres-bus.server";

const broadcast = (message: string): SystemEvent => ({
  type: "broadcast",
  userId: "u1",
  notificationId: "n1",
  kind: "broadcast",
  sender: "Ada",
  title: "Notice",
  message,
  level: "info",
  link: null,
});

describe("NOTIFY payloads", () => {
  it("keeps a long broadcast under the limit by cutting its text, ids intact", () => {
    const text = encode({ o: "x", s: 1, k: "event", c: CH, e: broadcast("é".repeat(20_000)) });
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(JSON.parse(text).e).toMatchObject({ notificationId: "n1", userId: "u1" });
  });

  it("gives each schema its own channel", () => {
    expect(notifyChannel("postgres://h/db?schema=t_ab")).toBe("dashboard_events_t_ab");
    expect(notifyChannel("postgres://h/db")).toBe("dashboard_events");
  });
});

describe.skipIf(!onPostgres)("event bus across instances (LISTEN/NOTIFY)", () => {
  const url = process.env.DATABASE_URL!;
  const pool = new pg.Pool(postgresConfig(url, { poolSize: 2 }));
  const notify = (channel: string, payloads: string[]) =>
    pool.query("select pg_notify($1, p) from unnest($2::text[]) with ordinality as t(p, i) order by i", [
      channel,
      payloads,
    ]);
  const a = createPostgresBus({ url, local: createInProcessBus(), log: createDbEventLog(), notify });
  const b = createPostgresBus({ url, local: createInProcessBus(), log: createDbEventLog(), notify });

  beforeAll(setupDatabase);

  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await pool.end();
  });

  it("delivers an event published on A to a subscriber on B, once", async () => {
    await Promise.all([a.ready, b.ready]);
    const onA: SystemEvent[] = [];
    const onB: SystemEvent[] = [];
    a.subscribe(CH, "u1", (e) => onA.push(e));
    b.subscribe(CH, "u1", (e) => onB.push(e));
    const event: SystemEvent = { type: "task-completed", userId: "u1", taskId: "t1", status: "completed" };
    a.publish(CH, event);
    await vi.waitFor(() => expect(onB).toEqual([event]));
    await vi.waitFor(() => expect(onA).toEqual([event]));
  });

  it("keeps order and equal messages apart in a burst (one statement for many events)", async () => {
    await Promise.all([a.ready, b.ready]);
    const got: string[] = [];
    b.subscribe(CH, "u2", (e) => got.push(e.type === "task-completed" ? e.taskId : "?"));
    const ids = Array.from({ length: 1_200 }, (_, i) => `t${i % 600}`);
    for (const taskId of ids)
      a.publish(CH, { type: "task-completed", userId: "u2", taskId, status: "completed" });
    await vi.waitFor(() => expect(got).toHaveLength(ids.length), { timeout: 10_000 });
    expect(got).toEqual(ids);
  });

  // An event's id is its commit's place (event-log.server.ts), and streams skip an id below one
  // they sent (stream.server.ts): a lower id heard after a higher one is a completion lost.
  it("hands its subscribers events in id order when another's NOTIFY is heard after its own commit", async ({
    skip,
  }) => {
    const listeners = async () =>
      new Set(
        (
          await pool.query<{ pid: number }>("select pid from pg_stat_activity where query = $1", [
            `LISTEN "${notifyChannel(url)}"`,
          ])
        ).rows.map((r) => r.pid),
      );
    const before = await listeners();
    const slow = createPostgresBus({ url, local: createInProcessBus(), log: createDbEventLog(), notify });
    await slow.ready;
    const [pid] = [...(await listeners())].filter((p) => !before.has(p));
    const ids: number[] = [];
    slow.subscribe(CH, "u6", (_event, id) => ids.push(id!));
    const event = (taskId: string): SystemEvent => ({
      type: "task-completed",
      userId: "u6",
      taskId,
      status: "completed",
    });
    // slow's listening backend, stopped, hears a's event only after slow's own has committed. Only
    // where the server runs on this machine and may be signalled (CI's: root, 127.0.0.1).
    try {
      process.kill(pid!, 0);
    } catch {
      await slow.close();
      skip();
    }
    process.kill(pid!, "SIGSTOP");
    let second: Promise<void> | undefined;
    try {
      await a.publish(CH, event("first"));
      second = slow.publish(CH, event("second"));
      // Committed, and the old bus had given it out by now.
      await vi.waitFor(async () => {
        const { rows } = await pool.query("select 1 from event_log where data like '%\"second\"%'");
        expect(rows).toHaveLength(1);
      });
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      process.kill(pid!, "SIGCONT");
    }
    try {
      await second;
      await vi.waitFor(() => expect(ids).toHaveLength(2));
      expect(ids[0]).toBeLessThan(ids[1]!);
    } finally {
      await slow.close();
    }
  });

  it("clears a cache on the other instance when one announces a change", async () => {
    await Promise.all([a.ready, b.ready]);
    const cleared = vi.fn();
    registerCache("menu", cleared);
    a.announce("menu");
    // Both buses share this process's cache registry: B's receipt is the one call (A ignores its echo).
    await vi.waitFor(() => expect(cleared).toHaveBeenCalledTimes(1));
  });

  it("ends a user's streams on the other instance when their sessions end", async () => {
    await Promise.all([a.ready, b.ready]);
    const ended = vi.fn();
    registerStreamEnder(ended);
    await a.endStreams("u3");
    await vi.waitFor(() => expect(ended).toHaveBeenCalledWith("u3"));
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it("ends one session's streams on the other instance when it signs out", async () => {
    await Promise.all([a.ready, b.ready]);
    const ended = vi.fn();
    registerSessionStreamEnder(ended);
    await a.endSessionStreams("handle-1");
    await vi.waitFor(() => expect(ended).toHaveBeenCalledWith("handle-1"));
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it("comes back after its listening connection is cut, clears caches and asks for a resync", async () => {
    const resynced = vi.fn();
    const c = createPostgresBus({
      url,
      local: createInProcessBus(),
      log: createDbEventLog(),
      notify,
      onResync: resynced,
      onError: () => {},
    });
    try {
      await c.ready;
      const cleared = vi.fn();
      registerCache("settings", cleared);
      const { rows } = await pool.query<{ pid: number }>(
        "select pid from pg_stat_activity where query = $1 order by backend_start desc limit 1",
        [`LISTEN "${notifyChannel(url)}"`],
      );
      // The newest listener is c's; a and b keep theirs.
      await pool.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
      await vi.waitFor(() => expect(resynced).toHaveBeenCalledTimes(1), { timeout: 10_000 });
      expect(cleared).toHaveBeenCalled();
      const got: SystemEvent[] = [];
      c.subscribe(CH, "u4", (e) => got.push(e));
      const event: SystemEvent = { type: "task-completed", userId: "u4", taskId: "t4", status: "failed" };
      a.publish(CH, event);
      await vi.waitFor(() => expect(got).toEqual([event]));
    } finally {
      await c.close();
    }
  });
});

describe.skipIf(!onPostgres)("the bus's listening connection", () => {
  beforeAll(setupDatabase);

  it("is closed when LISTEN is refused after connecting, not left open for every retry", async () => {
    const refused: pg.Client[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      if (typeof args[0] === "string" && args[0].startsWith("LISTEN")) {
        refused.push(this);
        return Promise.reject(new Error("cannot execute LISTEN during recovery"));
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const end = vi.spyOn(pg.Client.prototype, "end");
    const bus = createPostgresBus({
      url: process.env.DATABASE_URL!,
      local: createInProcessBus(),
      log: createDbEventLog(),
      notify: async () => {},
    });
    try {
      await expect(bus.ready).rejects.toThrow("cannot execute LISTEN during recovery");
      expect(refused).toHaveLength(1);
      expect(end.mock.contexts).toContain(refused[0]);
    } finally {
      spy.mockRestore();
      end.mockRestore();
      await bus.close();
    }
  });
});
