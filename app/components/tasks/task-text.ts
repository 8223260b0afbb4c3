import type { TFunction } from "i18next";
import { translateMessage } from "../../i18n/message";
import type { TaskStatus } from "../../tasks/task-types";
import type { StartFailure } from "./task-store";

// Task types and statuses are codes (the API's words); people read them through these.

const LABELS: Record<string, (t: TFunction) => string> = {
  "report.generate": (t) => t("tasks:type.reportGenerate"),
  "users.export": (t) => t("tasks:type.usersExport"),
  "audit.export": (t) => t("tasks:type.auditExport"),
  "broadcast.email": (t) => t("tasks:type.broadcastEmail"),
};

/** Types with a name; the test checks every registered type is among them. */
export const NAMED_TASK_TYPES = Object.keys(LABELS);

/** What the task centre calls a type; an unknown one shows its raw name. */
export function taskLabel(t: TFunction, type: string): string {
  return LABELS[type]?.(t) ?? type;
}

export function taskStatusText(t: TFunction, status: TaskStatus): string {
  switch (status) {
    case "pending":
      return t("tasks:status.pending");
    case "processing":
      return t("tasks:status.processing");
    case "completed":
      return t("tasks:status.completed");
    case "failed":
      return t("tasks:status.failed");
  }
}

/** Why a task did not start: the server's answer (English, the API's) said in the page's language. */
export function startFailureText(t: TFunction, type: string, failure: StartFailure): string {
  const task = taskLabel(t, type);
  if (failure.reason === "unreachable") return t("tasks:start.unreachable");
  if (failure.code === "too_many_tasks" && typeof failure.limit === "number")
    return t("tasks:start.tooMany", { task, count: failure.limit });
  const why = failure.message
    ? translateMessage(t, failure.message)
    : (failure.code ?? String(failure.status));
  return t("tasks:start.failed", { task, why });
}
