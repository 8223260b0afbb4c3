import { useEffect, useState } from "react";
import { isFinal, TASK_LABELS, type TaskStatus } from "../../tasks/task-types";
import type { TrackedTask } from "./task-store";

const STATUS_TEXT: Record<TaskStatus, string> = {
  pending: "Waiting",
  processing: "Running",
  completed: "Completed",
  failed: "Failed",
};
const STATUS_STYLE: Record<TaskStatus, string> = {
  pending: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
  processing: "bg-indigo-100 text-indigo-900 dark:bg-indigo-900 dark:text-indigo-100",
  completed: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  failed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
};

function useNow(active: boolean) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

function elapsed(from: string, to: number) {
  const s = Math.max(0, Math.round((to - Date.parse(from)) / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

const count = (n: unknown, one: string, many: string) =>
  typeof n === "number" ? `${n.toLocaleString("en-US")} ${n === 1 ? one : many}` : null;

/** What a finished task produced, in words (the raw result is for the API, not for people). */
export function resultSummary(type: string, result: unknown): string | null {
  if (!result || typeof result !== "object") return null;
  const r = result as Record<string, unknown>;
  if (type === "report.generate") {
    const tasks = (r.tasks ?? {}) as Record<string, unknown>;
    const parts = [
      count(r.users, "user", "users"),
      count(r.roles, "role", "roles"),
      typeof tasks.completed === "number"
        ? `${count(tasks.completed, "task", "tasks")} completed, ${tasks.failed ?? 0} failed`
        : null,
    ].filter(Boolean);
    return parts.length ? parts.join(" · ") : null;
  }
  if (type === "broadcast.email")
    return [count(r.sent, "email sent", "emails sent"), r.failed ? `${r.failed} failed` : null]
      .filter(Boolean)
      .join(" · ");
  return count(r.rows, "row", "rows");
}

export function TaskItem({ task }: { task: TrackedTask }) {
  const done = isFinal(task.status);
  const now = useNow(!done);
  const end = task.completedAt ? Date.parse(task.completedAt) : now;
  const result = (task.result ?? {}) as { error?: unknown; downloadUrl?: unknown };
  const label = TASK_LABELS[task.type] ?? task.type;
  const summary = task.status === "completed" ? resultSummary(task.type, task.result) : null;
  return (
    <li
      className="rounded-md border border-slate-200 p-2 text-sm dark:border-slate-700"
      data-testid="task-item"
    >
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium">{label}</span>
        <span className={`rounded-full px-2 py-0.5 text-xs font-semibold ${STATUS_STYLE[task.status]}`}>
          {STATUS_TEXT[task.status]}
        </span>
      </div>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {done ? "Took" : "Elapsed"} <time dateTime={task.createdAt}>{elapsed(task.createdAt, end)}</time>
      </p>
      {task.status === "processing" && task.progress !== null ? (
        <progress
          className="mt-1 h-1.5 w-full accent-indigo-600"
          max={100}
          value={Math.round(task.progress * 100)}
          aria-label={`${label} progress`}
        />
      ) : null}
      {task.status === "failed" && typeof result.error === "string" ? (
        <p className="mt-1 text-xs text-red-800 dark:text-red-300" data-testid="task-error">
          {result.error}
        </p>
      ) : null}
      {task.status === "completed" ? (
        <div className="mt-1 flex flex-wrap items-center gap-3 text-xs">
          {typeof result.downloadUrl === "string" ? (
            <a className="text-indigo-700 underline dark:text-indigo-300" href={result.downloadUrl} download>
              Download CSV
            </a>
          ) : null}
          {summary ? <span data-testid="task-result">{summary}</span> : null}
        </div>
      ) : null}
    </li>
  );
}
