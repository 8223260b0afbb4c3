import { sql } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { openUserStream } from "../events/stream.server";
import { setTaskRunner } from "../tasks/runner.server";
import { lifecycle } from "./lifecycle.server";
import { isDraining, readiness } from "./readiness.server";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

describe("production start", () => {
  it("refuses the development SESSION_SECRET", () => {
    process.env.NODE_ENV = "production";
    delete process.env.SESSION_SECRET;
    resetEnvCache();
    expect(() => lifecycle.start()).toThrow(/SESSION_SECRET/);
    process.env.SESSION_SECRET = "dev-only-insecure-secret";
    resetEnvCache();
    expect(() => lifecycle.start()).toThrow(/SESSION_SECRET/);
  });
});

describe("stop", () => {
  it("runs every step in order even when some fail, reports those, and closes the database last", async () => {
    await setupDatabase();
    const order: string[] = [];
    setTaskRunner({
      dispatch() {},
      async start() {},
      async stop() {
        order.push("task runner");
        throw new Error("the queue is gone");
      },
    });
    await lifecycle.start();
    const handle = db();
    const streamEnded = vi.fn();
    openUserStream("someone", { write: () => true, end: streamEnded });
    const reported: string[] = [];
    const failures = await lifecycle.stop({
      closeListener: async () => {
        order.push("listener");
      },
      closeMetricsListener: async () => {
        order.push("metrics listener");
        throw new Error("already closed");
      },
      onFailure: (step) => reported.push(step),
    });
    expect(failures.map((f) => f.step)).toEqual(["task runner", "metrics listener"]);
    expect(reported).toEqual(["task runner", "metrics listener"]);
    // The steps after each failure still ran: the listener, the streams, the database.
    expect(order).toEqual(["task runner", "listener", "metrics listener"]);
    expect(streamEnded).toHaveBeenCalled();
    await expect(sql`select 1`.execute(handle)).rejects.toThrow();
  });
});

describe("drain", () => {
  it("fails readiness from its first moment, waits DRAIN_MS, and ends early on endDrain()", async () => {
    process.env.DRAIN_MS = "60000";
    resetEnvCache();
    expect(isDraining()).toBe(false);
    let drained = false;
    const drain = lifecycle.drain().then(() => {
      drained = true;
    });
    expect(isDraining()).toBe(true);
    expect(await readiness()).toEqual({ ready: false, reason: "draining" });
    await new Promise((r) => setTimeout(r, 50));
    expect(drained).toBe(false);
    lifecycle.endDrain();
    await drain;
    expect(drained).toBe(true);
  });
});
