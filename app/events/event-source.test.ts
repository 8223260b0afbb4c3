import { describe, expect, it } from "vitest";
import { createEventStream, reconnectDelay, type SourceLike } from "./event-source";

// The tab's EventSource (event-source.ts) with a stand-in for the browser's: which URL each new
// one opens, when a closed one is re-created, and when it is not.

class FakeSource implements SourceLike {
  readyState = 0;
  closed = false;
  private readonly handlers = new Map<string, ((event: Event) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (event: Event) => void) {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), listener]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string, init: { data?: string; lastEventId?: string } = {}) {
    const event = Object.assign(new Event(type), {
      data: init.data ?? "",
      lastEventId: init.lastEventId ?? "",
    });
    for (const h of this.handlers.get(type) ?? []) h(event);
  }
  open() {
    this.readyState = 1;
    this.emit("open");
  }
  /** The browser gave up on it (e.g. its reconnect met a 503). */
  fail() {
    this.readyState = 2;
    this.emit("error");
  }
}

function harness(random = 0.5) {
  const sources: FakeSource[] = [];
  const timers: { run: () => void; ms: number; cleared: boolean }[] = [];
  const stream = createEventStream({
    open(url) {
      const s = new FakeSource(url);
      sources.push(s);
      return s;
    },
    random: () => random,
    setTimer(run, ms) {
      const t = { run, ms, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimer(handle) {
      (handle as { cleared: boolean }).cleared = true;
    },
  });
  const fire = () => {
    const t = timers.at(-1)!;
    if (!t.cleared) t.run();
  };
  return { stream, sources, timers, fire };
}

const completed = (taskId: string) =>
  JSON.stringify({ type: "task-completed", userId: "u", taskId, status: "completed" });

describe("reconnectDelay", () => {
  it("doubles from 1 s to a 30 s cap, ±50 %", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(n, 0.5))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(reconnectDelay(0, 0)).toBe(500);
    expect(reconnectDelay(0, 0.999)).toBe(1_499);
    expect(reconnectDelay(10, 0.999)).toBe(44_970);
  });
});

describe("the tab's event stream", () => {
  it("re-creates a closed EventSource after a backoff, from the last event id seen; resets on open", () => {
    const { stream, sources, timers, fire } = harness();
    const seen: string[] = [];
    let opens = 0;
    stream.add({
      type: "task-completed",
      handler: ((e: { taskId: string }) => seen.push(e.taskId)) as never,
    });
    stream.add({ type: "open", handler: (() => opens++) as never });
    expect(sources.map((s) => s.url)).toEqual(["/api/events"]);
    sources[0]!.open();
    sources[0]!.emit("task-completed", { data: completed("t1"), lastEventId: "41" });

    // The browser's own retry (readyState CONNECTING) is left to the browser.
    sources[0]!.readyState = 0;
    sources[0]!.emit("error");
    expect(timers).toHaveLength(0);

    sources[0]!.fail();
    expect(timers.map((t) => t.ms)).toEqual([1_000]);
    fire();
    expect(sources[1]!.url).toBe("/api/events?lastEventId=41");
    sources[1]!.fail(); // met a 503 again
    expect(timers.map((t) => t.ms)).toEqual([1_000, 2_000]);
    fire();
    sources[2]!.fail();
    expect(timers.at(-1)!.ms).toBe(4_000);
    fire();
    sources[3]!.open();
    expect(opens).toBe(2);
    sources[3]!.emit("task-completed", { data: completed("t2"), lastEventId: "57" });
    sources[3]!.fail();
    expect(timers.at(-1)!.ms).toBe(1_000); // reset by the open
    fire();
    expect(sources[4]!.url).toBe("/api/events?lastEventId=57");
    expect(seen).toEqual(["t1", "t2"]);
  });

  it("resumes from the id a fresh stream starts at (on its ping) when no event came before the drop", () => {
    const { stream, sources, fire } = harness();
    stream.add({ type: "task-completed", handler: (() => {}) as never });
    sources[0]!.open();
    sources[0]!.emit("ping", { data: "2026-01-01T00:00:00.000Z", lastEventId: "300" });
    sources[0]!.fail();
    fire();
    expect(sources[1]!.url).toBe("/api/events?lastEventId=300");
  });

  it("does not reconnect a tab evicted for a newer one", () => {
    const { stream, sources, timers } = harness();
    stream.add({ type: "open", handler: (() => {}) as never });
    sources[0]!.open();
    sources[0]!.emit("evicted");
    expect(sources[0]!.closed).toBe(true);
    expect(timers).toHaveLength(0);
    expect(sources).toHaveLength(1);
  });

  it("reconciles when the server says the missed events are no longer kept, and resumes from its id", () => {
    const { stream, sources, fire } = harness();
    let opens = 0;
    stream.add({ type: "open", handler: (() => opens++) as never });
    sources[0]!.open();
    sources[0]!.emit("reconcile", { data: "missed events are no longer kept", lastEventId: "90" });
    expect(opens).toBe(2);
    sources[0]!.fail();
    fire();
    expect(sources[1]!.url).toBe("/api/events?lastEventId=90");
  });

  // A part of the page that starts listening after the stream opened (the task centre after the
  // bell) would otherwise wait for the next reconnect to load what it shows.
  it("tells a listener that comes after the stream opened that it is open, once", async () => {
    const { stream, sources } = harness();
    stream.add({ type: "broadcast", handler: (() => {}) as never });
    sources[0]!.open();
    let opens = 0;
    stream.add({ type: "open", handler: (() => opens++) as never });
    await Promise.resolve();
    expect(opens).toBe(1);
    expect(sources).toHaveLength(1);
  });

  it("stops the pending reconnect when the last listener goes", () => {
    const { stream, sources, timers } = harness();
    const off = stream.add({ type: "open", handler: (() => {}) as never });
    sources[0]!.fail();
    off();
    expect(timers[0]!.cleared).toBe(true);
  });
});
