import { useEffect, useRef, useSyncExternalStore } from "react";
import { useRevalidator } from "react-router";
import { isFinal } from "../../tasks/task-types";
import { type TaskState, taskStore } from "./task-store";

const idle = () => () => {};

/**
 * The signed-in user's tasks, kept live over /api/events; `running` counts unfinished ones.
 * `live: false` leaves the stream closed until the caller needs it (a section that only follows
 * the task it starts), so a page whose header has no task centre opens no stream for nothing.
 */
export function useTaskNotifications({ live = true }: { live?: boolean } = {}): TaskState & {
  running: number;
  start: typeof taskStore.start;
} {
  const state = useSyncExternalStore(
    live ? taskStore.subscribe : idle,
    live ? taskStore.getSnapshot : taskStore.getServerSnapshot,
    taskStore.getServerSnapshot,
  );
  return {
    ...state,
    running: state.tasks.filter((t) => !isFinal(t.status)).length,
    start: taskStore.start,
  };
}

/**
 * Asks the page's loaders again when one of the viewer's tasks starts or finishes (the store,
 * fed by the event stream, tells it): counts and lists built from tasks follow without a reload.
 */
export function useRevalidateOnTaskChange() {
  const { tasks, loaded } = useTaskNotifications();
  const { revalidate } = useRevalidator();
  const signature = tasks.map((t) => `${t.id}:${t.status}`).join(",");
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (!loaded) return;
    if (seen.current !== null && seen.current !== signature) void revalidate();
    seen.current = signature;
  }, [loaded, signature, revalidate]);
}
