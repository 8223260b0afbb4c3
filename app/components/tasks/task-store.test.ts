import { afterEach, expect, it, vi } from "vitest";
import type { TaskView } from "../../tasks/task-types";

// The tab's reconcile (task-store.ts) against a stand-in GET /api/tasks: a task that finished while
// the stream was down is found however many newer tasks were started meanwhile.

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

class FakeSource {
  static last: FakeSource | null = null;
  readyState = 1;
  private readonly handlers = new Map<string, ((e: Event) => void)[]>();
  constructor(readonly url: string) {
    FakeSource.last = this;
  }
  addEventListener(type: string, h: (e: Event) => void) {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), h]);
  }
  close() {}
  emit(type: string) {
    for (const h of this.handlers.get(type) ?? []) h(new Event(type));
  }
}

const task = (n: number, status: TaskView["status"]): TaskView => {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id: `t${n}`,
    type: "demo",
    status,
    payload: null,
    result: null,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
  };
};

it("pages back past the newest 20 to the oldest task it thought unfinished", async () => {
  // Newest first, as GET /api/tasks answers: 150 tasks started after t0, which finished meanwhile.
  let all: TaskView[] = [task(0, "processing")];
  const asked: string[] = [];
  vi.stubGlobal("window", { setTimeout, clearTimeout });
  vi.stubGlobal("EventSource", FakeSource);
  vi.stubGlobal("fetch", async (url: string) => {
    asked.push(url);
    const u = new URL(url, "http://localhost");
    const limit = Number(u.searchParams.get("limit"));
    const cursor = u.searchParams.get("cursor");
    const from = cursor ? all.findIndex((t) => t.id === cursor) + 1 : 0;
    const tasks = all.slice(from, from + limit);
    const nextCursor = from + limit < all.length ? tasks.at(-1)!.id : null;
    return new Response(JSON.stringify({ tasks, nextCursor }));
  });
  const { taskStore } = await import("./task-store");
  const finished: string[] = [];
  taskStore.onFinished((t) => finished.push(t.id));
  const stop = taskStore.subscribe(() => {});
  FakeSource.last!.emit("open");
  await vi.waitFor(() => expect(taskStore.getSnapshot().tasks.map((t) => t.id)).toEqual(["t0"]));

  all = [...Array.from({ length: 150 }, (_, i) => task(150 - i, "completed")), task(0, "completed")];
  asked.length = 0;
  FakeSource.last!.emit("open"); // reconnected
  await vi.waitFor(() => expect(finished).toEqual(["t0"]));
  expect(asked).toHaveLength(2);
  expect(taskStore.getSnapshot().tasks).toHaveLength(20);
  stop();
});
