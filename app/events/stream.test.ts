import { afterEach, describe, expect, it, vi } from "vitest";
import { createInProcessBus } from "./bus.server";
import { SYSTEM_EVENT_CHANNEL as CH } from "./event-types";
import {
  closeAllStreams,
  closeStreamsOf,
  EVICTED_EVENT,
  MAX_STREAMS_PER_USER,
  openStreamCount,
  openUserStream,
  PING_INTERVAL_MS,
  sseFrame,
  userEventStream,
} from "./stream.server";

afterEach(() => {
  closeAllStreams();
  vi.useRealTimers();
});

/** Reads frames from an SSE body until `predicate` holds for the text read so far. */
async function readUntil(body: ReadableStream<Uint8Array>, predicate: (text: string) => boolean) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!predicate(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return text;
}

describe("user event stream", () => {
  it("sends the user's task-completed frame with an id and JSON data, uncompressed and unbuffered", async () => {
    const bus = createInProcessBus();
    const response = userEventStream(new AbortController().signal, "u1", { bus });
    expect(response.headers.get("Content-Type")).toBe("text/event-stream");
    expect(response.headers.get("Cache-Control")).toBe("no-cache, no-transform");
    expect(response.headers.get("X-Accel-Buffering")).toBe("no");
    await bus.publish(CH, { type: "task-completed", userId: "u2", taskId: "other", status: "completed" });
    await bus.publish(CH, { type: "task-completed", userId: "u1", taskId: "t1", status: "failed" });
    const text = await readUntil(response.body!, (t) => t.includes("task-completed\ndata:"));
    const frame = text.split("\n\n").find((f) => f.includes("event: task-completed"))!;
    expect(frame).toMatch(/^id: \d+\nevent: task-completed\ndata: /);
    expect(JSON.parse(frame.split("data: ")[1]!)).toEqual({
      type: "task-completed",
      userId: "u1",
      taskId: "t1",
      status: "failed",
    });
    expect(text).not.toContain("other");
  });

  it("pings every 15 s", async () => {
    vi.useFakeTimers();
    const bus = createInProcessBus();
    const response = userEventStream(new AbortController().signal, "u1", { bus });
    const pings = (t: string) => t.split("event: ping\n").length - 1;
    const opening = await readUntil(response.body!, (t) => t.endsWith("\n\n"));
    expect(pings(opening)).toBe(1);
    vi.advanceTimersByTime(PING_INTERVAL_MS);
    const next = await readUntil(response.body!, (t) => t.endsWith("\n\n"));
    expect(next).toMatch(/^event: ping\ndata: \S+\n\n$/);
  });

  it("returns the subscriber count to zero when many clients go, by abort or by cancel", async () => {
    const bus = createInProcessBus();
    const aborters: AbortController[] = [];
    const bodies: ReadableStream[] = [];
    for (let i = 0; i < 300; i++) {
      const controller = new AbortController();
      aborters.push(controller);
      bodies.push(userEventStream(controller.signal, `user-${i % 30}`, { bus }).body!);
    }
    expect(bus.subscriberCount(CH)).toBe(300);
    expect(openStreamCount()).toBe(300);

    // Half go the ordinary way: the request signal fires.
    for (const controller of aborters.slice(0, 150)) controller.abort();
    expect(bus.subscriberCount(CH)).toBe(150);

    // The other half vanish the Node 20 way: the body is cancelled and the signal stays silent.
    for (const body of bodies.slice(150)) await body.cancel();
    expect(bus.subscriberCount(CH)).toBe(0);
    expect(openStreamCount()).toBe(0);
  });

  it("a client gone without a word is dropped at the next write, at the latest the ping", async () => {
    vi.useFakeTimers();
    const bus = createInProcessBus();
    let gone = false;
    const writes: string[] = [];
    const sink = {
      write: (text: string) => {
        if (gone) throw new Error("socket closed");
        writes.push(text);
        return true;
      },
      end: vi.fn(),
    };
    for (let i = 0; i < 100; i++) openUserStream(`silent-${i}`, sink, { bus });
    expect(bus.subscriberCount(CH)).toBe(100);
    gone = true;
    await bus.publish(CH, { type: "task-completed", userId: "silent-7", taskId: "t", status: "completed" });
    expect(bus.subscriberCount(CH)).toBe(99);
    vi.advanceTimersByTime(PING_INTERVAL_MS);
    expect(bus.subscriberCount(CH)).toBe(0);
    expect(openStreamCount()).toBe(0);
    expect(sink.end).toHaveBeenCalledTimes(100);
  });

  it("pings every stream from one timer, spread over the 15 s, not one timer per stream", () => {
    vi.useFakeTimers();
    const bus = createInProcessBus();
    const pings = new Map<number, number>();
    const before = vi.getTimerCount();
    for (let i = 0; i < 300; i++) {
      pings.set(i, 0);
      const sink = {
        write: (text: string) => {
          if (text.startsWith("event: ping\n")) pings.set(i, pings.get(i)! + 1);
          return true;
        },
        end() {},
      };
      openUserStream(`u${i % 30}`, sink, { bus, maxPerUser: 300 });
      vi.advanceTimersByTime(50); // streams open over 15 s
    }
    expect(vi.getTimerCount() - before).toBe(1);
    const opened = new Map(pings);
    vi.advanceTimersByTime(PING_INTERVAL_MS * 4);
    // Each stream got a ping per 15 s, whenever in the cycle it opened.
    expect(new Set([...pings].map(([i, n]) => n - opened.get(i)!))).toEqual(new Set([4]));
    // The timer goes with the last stream, so an idle process holds none.
    closeAllStreams();
    expect(vi.getTimerCount()).toBe(before);
  });

  it("writes each frame in one piece", async () => {
    const bus = createInProcessBus();
    const writes: string[] = [];
    openUserStream("one", { write: (t) => writes.push(t) > 0, end() {} }, { bus });
    await bus.publish(CH, { type: "task-completed", userId: "one", taskId: "t1", status: "completed" });
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatch(/^retry: \d+\nevent: ping\ndata: \S+\n\n$/);
    expect(writes[1]).toMatch(/^id: \d+\nevent: task-completed\ndata: \{.*"taskId":"t1".*\}\n\n$/);
    expect(sseFrame("x", "a\nb")).toBe("event: x\ndata: a\ndata: b\n\n");
  });

  it("a stream that throws never stops delivery to the user's other streams", async () => {
    const bus = createInProcessBus();
    const dead = userEventStream(new AbortController().signal, "u1", { bus });
    const live = userEventStream(new AbortController().signal, "u1", { bus });
    await dead.body!.cancel();
    await bus.publish(CH, { type: "task-completed", userId: "u1", taskId: "t9", status: "completed" });
    const text = await readUntil(live.body!, (t) => t.includes("t9"));
    expect(text).toContain('"taskId":"t9"');
    expect(bus.subscriberCount(CH)).toBe(1);
  });

  it("closes one user's streams when their sessions end, and only theirs", async () => {
    const bus = createInProcessBus();
    const a1 = userEventStream(new AbortController().signal, "ua", { bus });
    userEventStream(new AbortController().signal, "ua", { bus });
    userEventStream(new AbortController().signal, "ub", { bus });
    expect(openStreamCount()).toBe(3);
    closeStreamsOf("ua");
    expect(openStreamCount()).toBe(1);
    expect(bus.subscriberCount(CH)).toBe(1);
    const text = await readUntil(a1.body!, () => false);
    expect(text).toContain("event: ping");
  });

  it("keeps at most 10 streams per user: the 11th closes that user's oldest, others are untouched", async () => {
    expect(MAX_STREAMS_PER_USER).toBe(10);
    const bus = createInProcessBus();
    const other = userEventStream(new AbortController().signal, "calm", { bus });
    const mine = Array.from({ length: 11 }, () =>
      userEventStream(new AbortController().signal, "greedy", { bus }),
    );
    expect(openStreamCount()).toBe(11);
    expect(bus.subscriberCount(CH)).toBe(11);

    // The oldest has ended (its body finishes after the opening ping); the newest still delivers.
    const oldest = await readUntil(mine[0]!.body!, () => false);
    expect(oldest).toContain(`event: ${EVICTED_EVENT}`);
    expect(await readUntil(mine[1]!.body!, (t) => t.endsWith("\n\n"))).not.toContain(EVICTED_EVENT);
    await bus.publish(CH, { type: "task-completed", userId: "greedy", taskId: "g1", status: "completed" });
    await bus.publish(CH, { type: "task-completed", userId: "calm", taskId: "c1", status: "completed" });
    expect(await readUntil(mine[10]!.body!, (t) => t.includes("g1"))).toContain('"taskId":"g1"');
    expect(await readUntil(mine[1]!.body!, (t) => t.includes("g1"))).toContain('"taskId":"g1"');
    expect(await readUntil(other.body!, (t) => t.includes("c1"))).toContain('"taskId":"c1"');

    // Hundreds more from the same user never hold more than ten subscriptions.
    for (let i = 0; i < 300; i++) userEventStream(new AbortController().signal, "greedy", { bus });
    expect(bus.subscriberCount(CH)).toBe(11);
  });

  it("ends when its session expires, at the next ping (the browser then reconnects, renewed or refused)", async () => {
    vi.useFakeTimers();
    const bus = createInProcessBus();
    const until = new Date(Date.now() + 200).toISOString();
    const response = userEventStream(new AbortController().signal, "expiring", { bus, until });
    expect(openStreamCount()).toBe(1);
    vi.advanceTimersByTime(PING_INTERVAL_MS);
    expect(bus.subscriberCount()).toBe(0);
    expect(openStreamCount()).toBe(0);
    const reader = response.body!.getReader();
    let done = false;
    while (!done) done = (await reader.read()).done;

    // A session already past its end gets its opening frame and nothing more.
    userEventStream(new AbortController().signal, "expired", { bus, until: new Date(0).toISOString() });
    expect(openStreamCount()).toBe(0);
  });
});
