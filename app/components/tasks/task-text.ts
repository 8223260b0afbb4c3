import type { TFunction } from "i18next";
import { type MessageKey, say } from "../../i18n/message";
// Only this subtree reaches the browser's bundle (Vite's named JSON exports).
import { tasks as englishTasks } from "../../locales/en/messages.json";
import type { TaskStatus, TaskView } from "../../tasks/task-types";
import type { StartFailure } from "./task-store";

// Task types and statuses are codes (the API's words); people read them through these.

const LABELS: Record<string, (t: TFunction) => string> = {
  "report.generate": (t) => t("tasks:type.reportGenerate"),
  "users.export": (t) => t("tasks:type.usersExport"),
  "users.import": (t) => t("tasks:type.usersImport"),
  "users.bulk": (t) => t("tasks:type.usersBulk"),
  "audit.export": (t) => t("tasks:type.auditExport"),
  "audit.verify": (t) => t("tasks:type.auditVerify"),
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

/**
 * Why a task did not start, from the server's answer (the API's: a code, and English words, shown
 * as they are for what the page cannot name by code).
 */
export function startFailureText(t: TFunction, type: string, failure: StartFailure): string {
  const task = taskLabel(t, type);
  if (failure.reason === "unreachable") return t("tasks:start.unreachable");
  if (failure.code === "too_many_tasks" && typeof failure.limit === "number")
    return t("tasks:start.tooMany", { task, count: failure.limit });
  const why = failure.message ?? failure.code ?? String(failure.status);
  return t("tasks:start.failed", { task, why });
}

/**
 * Why a task failed. result.error is stored and served in English (the API's words,
 * docs/http-contract.md), so a page cannot be handed a key: the runner's fixed reasons
 * (messages.json, tasks.failure) are recognised by their exact English and said in the page's
 * language; anything else (a reason with data in it) is shown as stored.
 */
export function taskFailureText(t: TFunction, error: string): string {
  const reason = Object.entries(englishTasks.failure).find(([, english]) => english === error)?.[0];
  return reason ? say(t, `tasks.failure.${reason}` as MessageKey) : error;
}

/** Only the app's own download route: a result is the API's data, never a link to elsewhere. */
const DOWNLOAD_URL = /^\/api\/tasks\/[0-9a-f-]{36}\/download$/i;

/**
 * The file a finished task offers, as a link's address and words ("Download JSON Lines" for a
 * .jsonl file, else "Download CSV"), or null when it produced none.
 */
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
