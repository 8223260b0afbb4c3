// Shapes shared by the server and the browser (no server imports here).

export const TASK_STATUSES = ["pending", "processing", "completed", "failed"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type FinalStatus = Extract<TaskStatus, "completed" | "failed">;

/** The JSON of GET /api/tasks/:id, and of each item of GET /api/tasks. */
export type TaskView = {
  id: string;
  type: string;
  status: TaskStatus;
  payload: unknown;
  result: unknown;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
};

export function isFinal(status: TaskStatus): status is FinalStatus {
  return status === "completed" || status === "failed";
}
