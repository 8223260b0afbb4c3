import { useSyncExternalStore } from "react";
import { isFinal } from "../../tasks/task-types";
import { type TaskState, taskStore } from "./task-store";

/** The signed-in user's tasks, kept live over /api/events; `running` counts unfinished ones. */
export function useTaskNotifications(): TaskState & { running: number; start: typeof taskStore.start } {
  const state = useSyncExternalStore(taskStore.subscribe, taskStore.getSnapshot, taskStore.getServerSnapshot);
  return {
    ...state,
    running: state.tasks.filter((t) => !isFinal(t.status)).length,
    start: taskStore.start,
  };
}
