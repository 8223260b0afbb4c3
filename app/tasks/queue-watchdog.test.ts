import { describe, expect, it, vi } from "vitest";
import { Watchdog } from "./queue-watchdog.server";

/** A runner whose end the test decides. */
function fakeRunner() {
  let end: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    end = resolve;
  });
  return { promise, stop: vi.fn(async () => end()), end: () => end() };
}

describe("queue watchdog", () => {
  it("restarts a runner that ended by itself, unhealthy in between", async () => {
    const runners: ReturnType<typeof fakeRunner>[] = [];
    const fatal = vi.fn();
    const dog = new Watchdog(
      async () => {
        const r = fakeRunner();
        runners.push(r);
        return r;
      },
      { delaysMs: [200, 200], stableMs: 60_000, onFatal: fatal, log: () => {} },
    );
    await dog.start();
    expect(dog.healthy).toBe(true);
    runners[0]!.end();
    await new Promise((r) => setTimeout(r, 0));
    expect(dog.healthy).toBe(false);
    await vi.waitFor(() => expect(runners).toHaveLength(2));
    expect(dog.healthy).toBe(true);
    expect(dog.running).toBe(runners[1]);
    // Released by its owner: it ends without a restart.
    const released = dog.release();
    await released?.stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(runners).toHaveLength(2);
    expect(fatal).not.toHaveBeenCalled();
  });

  it("gives up after the last restart in a row fails, and says so", async () => {
    let launches = 0;
    const fatal = vi.fn();
    const first = fakeRunner();
    const dog = new Watchdog(
      async () => {
        launches++;
        if (launches === 1) return first;
        throw new Error("the queue's schema is newer than this release");
      },
      { delaysMs: [5, 5, 5], stableMs: 60_000, onFatal: fatal, log: () => {} },
    );
    await dog.start();
    first.end();
    await vi.waitFor(() => expect(fatal).toHaveBeenCalledOnce());
    expect(launches).toBe(4);
    expect(fatal.mock.calls[0]![0]).toEqual(new Error("the queue's schema is newer than this release"));
    expect(dog.healthy).toBe(false);
  });
});
