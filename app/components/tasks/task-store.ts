import { onStreamError, onStreamOpen, onSystemEvent } from "../../events/event-source";
import type { TaskCompletedEvent, TaskProgressEvent } from "../../events/event-types";
import { isFinal, type TaskView } from "../../tasks/task-types";

export type TrackedTask = TaskView & { progress: number | null };
export type TaskState = { tasks: TrackedTask[]; connected: boolean; loaded: boolean };
type Notify = (task: TrackedTask) => void;

const EMPTY: TaskState = { tasks: [], connected: false, loaded: false };
let state: TaskState = EMPTY;
const listeners = new Set<() => void>();
let disconnect: (() => void) | null = null;
let notify: Notify = () => {};

function set(next: Partial<TaskState>) {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

function upsert(task: TaskView, progress?: number | null) {
  const previous = state.tasks.find((t) => t.id === task.id);
  const merged: TrackedTask = {
    ...task,
    progress: isFinal(task.status) ? null : (progress ?? previous?.progress ?? null),
  };
  const rest = state.tasks.filter((t) => t.id !== task.id);
  set({ tasks: [merged, ...rest].sort((a, b) => b.createdAt.localeCompare(a.createdAt)) });
  return previous;
}

async function getJson<T>(url: string): Promise<T | null> {
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    return response.ok ? ((await response.json()) as T) : null;
  } catch {
    return null;
  }
}

/** A reconcile reads further back to find those that finished unseen. */
const SHOWN = 20;
const PAGE = 100;
const MAX_PAGES = 10;

type Page = { tasks: TaskView[]; nextCursor: string | null };

/** Pages back until it passes the oldest task this tab thought unfinished, so a finish is noticed however many tasks came since. */
async function reconcile() {
  const oldestOpen =
    state.tasks
      .filter((t) => !isFinal(t.status))
      .map((t) => t.createdAt)
      .sort()[0] ?? null;
  const fetched: TaskView[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page: Page | null = await getJson<Page>(`/api/tasks?limit=${PAGE}${query}`);
    if (!page) {
      if (i === 0) return; // unreachable: keep what the tab shows, the next open tries again
      break;
    }
    fetched.push(...page.tasks);
    cursor = page.nextCursor;
    const last = page.tasks.at(-1);
    if (!cursor || !last || oldestOpen === null || last.createdAt <= oldestOpen) break;
  }
  const known = new Map(state.tasks.map((t) => [t.id, t]));
  set({
    loaded: true,
    tasks: fetched.slice(0, SHOWN).map((t) => ({
      ...t,
      progress: isFinal(t.status) ? null : (known.get(t.id)?.progress ?? null),
    })),
  });
  for (const task of fetched) {
    const before = known.get(task.id);
    if (before && !isFinal(before.status) && isFinal(task.status)) notify({ ...task, progress: null });
  }
}

async function onCompleted(event: TaskCompletedEvent) {
  const task = await getJson<TaskView>(`/api/tasks/${event.taskId}`);
  if (!task) return;
  const before = upsert(task);
  if (!before || !isFinal(before.status)) notify({ ...task, progress: null });
}

function onProgress(event: TaskProgressEvent) {
  const current = state.tasks.find((t) => t.id === event.taskId);
  if (current && isFinal(current.status)) return;
  if (!current) {
    void reconcile();
    return;
  }
  upsert({ ...current, status: "processing" }, event.progress);
}

function connect() {
  const offs = [
    onStreamOpen(() => {
      set({ connected: true });
      void reconcile();
    }),
    onStreamError(() => set({ connected: false })),
    onSystemEvent("task-completed", (event) => void onCompleted(event)),
    onSystemEvent("task-progress", onProgress),
  ];
  disconnect = () => {
    for (const off of offs) off();
  };
}

export type StartFailure =
  | { reason: "unreachable" }
  | { reason: "refused"; status: number; code?: string; message?: string; limit?: number };

export const taskStore = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    if (!disconnect && typeof window !== "undefined") connect();
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) {
        disconnect?.();
        disconnect = null;
        state = EMPTY;
      }
    };
  },
  getSnapshot: () => state,
  refresh() {
    if (disconnect) void reconcile();
  },
  getServerSnapshot: () => EMPTY,
  onFinished(callback: Notify) {
    notify = callback;
  },
  async start(
    type: string,
    payload?: unknown,
  ): Promise<{ ok: true; taskId: string } | ({ ok: false } & StartFailure)> {
    let response: Response;
    try {
      response = await fetch("/api/tasks", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ type, payload }),
      });
    } catch {
      return { ok: false, reason: "unreachable" };
    }
    const body = (await response.json().catch(() => ({}))) as {
      taskId?: string;
      error?: string;
      message?: string;
      limit?: number;
    };
    if (response.status !== 202 || !body.taskId)
      return {
        ok: false,
        reason: "refused",
        status: response.status,
        code: body.error,
        message: body.message,
        limit: body.limit,
      };
    const ts = new Date().toISOString();
    const already = state.tasks.find((t) => t.id === body.taskId);
    if (!already) {
      upsert({
        id: body.taskId,
        type,
        status: "pending",
        payload: payload ?? null,
        result: null,
        createdAt: ts,
        updatedAt: ts,
        completedAt: null,
      });
    }
    return { ok: true, taskId: body.taskId };
  },
};
