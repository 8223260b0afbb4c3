// The system events the bus carries and the SSE stream forwards. A discriminated union, so a new
// kind (a broadcast notice, say) is one more member and every switch over `type` is checked.

export const SYSTEM_EVENT_CHANNEL = "system-event";
export type Channel = typeof SYSTEM_EVENT_CHANNEL;

export type TaskCompletedEvent = {
  type: "task-completed";
  userId: string;
  taskId: string;
  /** A final task status (FinalStatus in app/tasks/task-types.ts; the events layer names no domain). */
  status: "completed" | "failed";
};

export type TaskProgressEvent = {
  type: "task-progress";
  userId: string;
  taskId: string;
  status: "processing";
  /** 0..1 */
  progress: number;
  message?: string;
};

/** A new notification: a person's broadcast (`sender` names them) or the app's own security notice. */
type BroadcastEvent = {
  type: "broadcast";
  userId: string;
  notificationId: string;
  /** Who wrote it (NotificationKind in db/schema.ts): only the app sends "security". */
  kind: "broadcast" | "security";
  /** The broadcast's sender's name; null for a security notice (or a sender no longer there). */
  sender: string | null;
  title: string;
  message: string;
  level: "info" | "success" | "warning" | "critical";
  link: string | null;
};

export type SystemEvent = TaskCompletedEvent | TaskProgressEvent | BroadcastEvent;
export type SystemEventType = SystemEvent["type"];
