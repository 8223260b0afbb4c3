import { useEffect, useRef, useSyncExternalStore } from "react";
import { useRevalidator } from "react-router";
import { isFinal } from "../../tasks/task-types";
import { type TaskState, taskStore } from "./task-store";

const idle = () => () => {};

/** `live: false` leaves the stream closed until needed, so a page without a task centre opens none. */
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

/** Counts and lists built from tasks follow without a reload. */
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
