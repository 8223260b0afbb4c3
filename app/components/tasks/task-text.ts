import type { TFunction } from "i18next";
import { type MessageKey, say } from "../../i18n/message";
// Only this subtree reaches the browser's bundle (Vite's named JSON exports).
import { tasks as englishTasks } from "../../locales/en/messages.json";
import type { TaskStatus, TaskView } from "../../tasks/task-types";
import type { StartFailure } from "./task-store";

const LABELS: Record<string, (t: TFunction) => string> = {
  "report.generate": (t) => t("tasks:type.reportGenerate"),
  "users.export": (t) => t("tasks:type.usersExport"),
  "users.import": (t) => t("tasks:type.usersImport"),
  "users.bulk": (t) => t("tasks:type.usersBulk"),
  "audit.export": (t) => t("tasks:type.auditExport"),
  "audit.verify": (t) => t("tasks:type.auditVerify"),
  "broadcast.email": (t) => t("tasks:type.broadcastEmail"),
  "access_review.close": (t) => t("tasks:type.accessReviewClose"),
};

/** A test checks every registered type is among them. */
export const NAMED_TASK_TYPES = Object.keys(LABELS);

/** An unknown type shows its raw name. */
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

/** A task's "started" toast is replaced by its outcome's, which the task centre shows under the same key. */
export const taskToastKey = (taskId: string) => `task:${taskId}`;

export function startFailureText(t: TFunction, type: string, failure: StartFailure): string {
  const task = taskLabel(t, type);
  if (failure.reason === "unreachable") return t("tasks:start.unreachable");
  if (failure.code === "too_many_tasks" && typeof failure.limit === "number")
    return t("tasks:start.tooMany", { task, count: failure.limit });
  const why = failure.message ?? failure.code ?? String(failure.status);
  return t("tasks:start.failed", { task, why });
}

/** result.error is stored in English, so the runner's fixed reasons are recognised by their exact English and translated. */
export function taskFailureText(t: TFunction, error: string): string {
  const reason = Object.entries(englishTasks.failure).find(([, english]) => english === error)?.[0];
  return reason ? say(t, `tasks.failure.${reason}` as MessageKey) : error;
}

/** A result is the API's data, never a link to elsewhere. */
const DOWNLOAD_URL = /^\/api\/tasks\/[0-9a-f-]{36}\/download$/i;

export function taskDownload(
  t: TFunction,
  task: Pick<TaskView, "status" | "result">,
): { href: string; label: string } | null {
  if (task.status !== "completed" || !task.result || typeof task.result !== "object") return null;
  const { downloadUrl, filename } = task.result as { downloadUrl?: unknown; filename?: unknown };
  if (typeof downloadUrl !== "string" || !DOWNLOAD_URL.test(downloadUrl)) return null;
  const jsonl = typeof filename === "string" && filename.endsWith(".jsonl");
  return { href: downloadUrl, label: jsonl ? t("tasks:item.downloadJsonl") : t("tasks:item.downloadCsv") };
}
