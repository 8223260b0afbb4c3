import { afterEach, describe, expect, it } from "vitest";
import { createInProcessBus } from "./bus.server";
import { createMemoryEventLog, type EventLog, type Replay } from "./event-log.server";
import { SYSTEM_EVENT_CHANNEL as CH, type SystemEvent } from "./event-types";
import { closeAllStreams, lastEventIdOf, openUserStream, RECONCILE_EVENT } from "./stream.server";

// What a reconnecting client is sent (stream.server.ts): the events after its Last-Event-ID, then
// the live ones, each once and in id order, however the two overlap.

afterEach(() => closeAllStreams());

const done = (userId: string, taskId: string): SystemEvent => ({
  type: "task-completed",
  userId,
  taskId,
  status: "completed",
});

/** The id and task of every event frame written, in order. */
function frames(writes: string[]) {
  return writes
    .join("")
    .split("\n\n")
    .filter((f) => f.includes("event: task-completed"))
    .map((f) => `${/^id: (\d+)/m.exec(f)?.[1]}:${JSON.parse(f.split("data: ")[1]!).taskId}`);
}

function sink() {
  const writes: string[] = [];
  return { writes, sink: { write: (t: string) => writes.push(t) > 0, end() {} } };
}

/** A log whose replay answers only when the test says, so live events can arrive meanwhile. */
function slowLog(): EventLog & { release(): void } {
  const log = createMemoryEventLog();
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  return {
    append: (events, announce) => log.append(events, announce),
    appendIn: (trx, events, announce) => log.appendIn(trx, events, announce),
    newest: (userId) => log.newest(userId),
    async replay(userId, afterId): Promise<Replay> {
      await gate;
      return log.replay(userId, afterId);
    },
    release: () => release(),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe("replay after Last-Event-ID", () => {
  it("sends the user's missed events in order, then live ones, none twice and none lost", async () => {
    const log = slowLog();
    const bus = createInProcessBus(console.error, log);
    await bus.publish(CH, done("r1", "seen"));
    await bus.publishMany(CH, [done("r1", "m1"), done("other", "x"), done("r1", "m2")]);
    const { writes, sink: s } = sink();
    openUserStream("r1", s, { bus, lastEventId: 1 });
    // Live while the log is being read: the read returns it too, and it is sent once.
    await bus.publish(CH, done("r1", "m3"));
    log.release();
    await settle();
    await bus.publish(CH, done("r1", "m4"));
    expect(frames(writes)).toEqual(["2:m1", "4:m2", "5:m3", "6:m4"]);
  });

  it("skips a live event the replay already sent (it committed before the read, arrived after)", async () => {
    const log = slowLog();
    const bus = createInProcessBus(console.error, log);
    await bus.publish(CH, done("r2", "seen"));
    const { writes, sink: s } = sink();
    openUserStream("r2", s, { bus, lastEventId: 1 });
    // In the log before the read answers, and delivered live while it is pending: both paths carry it.
    await bus.publish(CH, done("r2", "both"));
    log.release();
    await settle();
    expect(frames(writes)).toEqual(["2:both"]);
  });

  it("sends a reconcile frame, with the user's newest id, when the window lost some", async () => {
    const bus = createInProcessBus(console.error, createMemoryEventLog(3));
    await bus.publishMany(CH, [
      done("r3", "a"),
      done("r3", "b"),
      done("r3", "c"),
      done("r3", "d"),
      done("r3", "e"),
    ]);
    const { writes, sink: s } = sink();
    openUserStream("r3", s, { bus, lastEventId: 1 });
    await settle();
    await bus.publish(CH, done("r3", "f"));
    const text = writes.join("");
    expect(text).toContain(`id: 5\nevent: ${RECONCILE_EVENT}\n`);
    expect(frames(writes)).toEqual(["6:f"]);
  });

  it("never sends another user's events, whatever id is asked for", async () => {
    const bus = createInProcessBus();
    await bus.publishMany(CH, [done("mine", "m"), done("theirs", "t1"), done("theirs", "t2")]);
    const { writes, sink: s } = sink();
    openUserStream("mine", s, { bus, lastEventId: 1 });
    await settle();
    expect(writes.join("")).not.toContain("theirs");
  });

  it("starts every stream with a retry hint, and ends them all with the drain's", async () => {
    const bus = createInProcessBus();
    const { writes, sink: s } = sink();
    openUserStream("r4", s, { bus });
    expect(writes[0]).toMatch(/^retry: (\d+)\n/);
    const retry = Number(/^retry: (\d+)/.exec(writes[0]!)![1]);
    expect(retry).toBeGreaterThanOrEqual(2_000);
    expect(retry).toBeLessThan(3_000);
    closeAllStreams(750);
    expect(writes.at(-1)).toBe("retry: 750\n\n");
  });
});

describe("lastEventIdOf", () => {
  const req = (headers: Record<string, string>, query = "") =>
    new Request(`http://localhost/api/events${query}`, { headers });
  it("reads the header, else the query; ignores what is not a plain positive id", () => {
    expect(lastEventIdOf(req({ "Last-Event-ID": "42" }))).toBe(42);
    expect(lastEventIdOf(req({}, "?lastEventId=7"))).toBe(7);
    expect(lastEventIdOf(req({ "Last-Event-ID": "42" }, "?lastEventId=7"))).toBe(42);
    expect(lastEventIdOf(req({ "Last-Event-ID": "nope" }, "?lastEventId=7"))).toBe(7);
    for (const bad of ["", "0", "-5", "1e3", "0x10", "3.5", " ", "99999999999999999999", "9007199254740993"])
      expect(lastEventIdOf(req({ "Last-Event-ID": bad }))).toBeUndefined();
  });
});

describe("a stream opened without Last-Event-ID", () => {
  it("starts at the user's newest id, so a reconnect replays what came after", async () => {
    const bus = createInProcessBus();
    await bus.publishMany(CH, [done("n1", "old1"), done("other", "x"), done("n1", "old2")]);
    const first = sink();
    openUserStream("n1", first.sink, { bus });
    await settle();
    // A ping carrying the id: the client's Last-Event-ID without an event (nothing before the stream is resent).
    expect(first.writes.join("")).toMatch(/\nid: 3\nevent: ping\n/);
    expect(frames(first.writes)).toEqual([]);
    closeAllStreams();
    await bus.publish(CH, done("n1", "missed"));
    const second = sink();
    openUserStream("n1", second.sink, { bus, lastEventId: 3 });
    await settle();
    expect(frames(second.writes)).toEqual(["4:missed"]);
  });

  it("sends an older event heard after a newer one (another instance's, on its way), once and without an id", async () => {
    const local = createInProcessBus();
    const { writes, sink: s } = sink();
    await local.publish(CH, done("n3", "before"));
    openUserStream("n3", s, { bus: local });
    await settle();
    local.deliver(CH, done("n3", "newer"), 3);
    // Id 2 committed first on another instance; its NOTIFY reached this one after id 3.
    local.deliver(CH, done("n3", "older"), 2);
    local.deliver(CH, done("n3", "older"), 2);
    local.deliver(CH, done("n3", "newer"), 3);
    expect(frames(writes)).toEqual(["3:newer", "undefined:older"]);
  });

  it("sends an older event that arrives after the start without an id, and a newer one with it", async () => {
    const local = createInProcessBus();
    const { writes, sink: s } = sink();
    await local.publish(CH, done("n2", "before"));
    await local.publish(CH, done("n2", "late"));
    openUserStream("n2", s, { bus: local });
    await settle();
    // Another instance's event 2 reaching this one only now (its NOTIFY was on its way).
    local.deliver(CH, done("n2", "late"), 2);
    await local.publish(CH, done("n2", "next"));
    expect(frames(writes)).toEqual(["undefined:late", "3:next"]);
  });
});
