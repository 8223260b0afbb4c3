import { describe, expect, it } from "vitest";
import { createInProcessBus } from "./bus.server";
import { SYSTEM_EVENT_CHANNEL as CH, type SystemEvent } from "./event-types";

const completed = (userId: string, taskId = "t1"): SystemEvent => ({
  type: "task-completed",
  userId,
  taskId,
  status: "completed",
});

describe("in-process event bus", () => {
  it("routes an event to its user's subscribers only (B never sees A's event)", async () => {
    const bus = createInProcessBus();
    const a: SystemEvent[] = [];
    const b: SystemEvent[] = [];
    bus.subscribe(CH, "user-a", (e) => a.push(e));
    bus.subscribe(CH, "user-a", (e) => a.push(e));
    bus.subscribe(CH, "user-b", (e) => b.push(e));
    await bus.publish(CH, completed("user-a"));
    expect(a).toHaveLength(2);
    expect(b).toEqual([]);
  });

  it("keeps delivering to the others when one subscriber throws", async () => {
    const errors: unknown[] = [];
    const bus = createInProcessBus((e) => errors.push(e));
    const got: string[] = [];
    bus.subscribe(CH, "u", () => got.push("first"));
    bus.subscribe(CH, "u", () => {
      throw new Error("Controller is already closed");
    });
    bus.subscribe(CH, "u", () => got.push("third"));
    await bus.publish(CH, completed("u"));
    expect(got).toEqual(["first", "third"]);
    expect(errors).toHaveLength(1);
  });

  it("counts subscribers and forgets users with none; unsubscribing twice is harmless", () => {
    const bus = createInProcessBus();
    const offs = Array.from({ length: 50 }, (_, i) => bus.subscribe(CH, `u${i % 5}`, () => {}));
    expect(bus.subscriberCount(CH)).toBe(50);
    for (const off of offs) {
      off();
      off();
    }
    expect(bus.subscriberCount()).toBe(0);
  });

  it("lets a subscriber unsubscribe itself while an event is delivered", async () => {
    const bus = createInProcessBus();
    const got: number[] = [];
    const off = bus.subscribe(CH, "u", () => {
      got.push(1);
      off();
    });
    bus.subscribe(CH, "u", () => got.push(2));
    await bus.publish(CH, completed("u"));
    await bus.publish(CH, completed("u"));
    expect(got).toEqual([1, 2, 2]);
  });
});
