import type { TFunction } from "i18next";
import { useEffect, useState } from "react";
import { type Message, say } from "../../i18n/message";
import { useTranslation } from "../../i18n/use-translation";
import { isFinal } from "../../tasks/task-types";
import { formatNumberIn } from "../format";
import { linkVariants } from "../ui/link";
import { TaskStatusBadge } from "../users/user-badges";
import { taskInputSummary } from "./task-input";
import type { TrackedTask } from "./task-store";
import { taskDownload, taskFailureText, taskLabel } from "./task-text";

function useNow(active: boolean) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

function elapsed(t: TFunction, from: string, to: number) {
  const s = Math.max(0, Math.round((to - Date.parse(from)) / 1000));
  return s < 60
    ? t("tasks:item.seconds", { s })
    : t("tasks:item.minutesSeconds", { m: Math.floor(s / 60), s: s % 60 });
}

/** What a finished task produced, in words (the raw result is for the API, not for people). */
export function resultSummary(t: TFunction, language: string, type: string, result: unknown): string | null {
  if (!result || typeof result !== "object") return null;
  const r = result as Record<string, unknown>;
  const n = (value: number) => formatNumberIn(language, value);
  if (type === "report.generate") {
    const tasks = (r.tasks ?? {}) as Record<string, unknown>;
    const parts = [
      typeof r.users === "number" ? t("tasks:result.users", { count: r.users, n: n(r.users) }) : null,
      typeof r.roles === "number" ? t("tasks:result.roles", { count: r.roles, n: n(r.roles) }) : null,
      typeof tasks.completed === "number"
        ? t("tasks:result.tasks", {
            count: tasks.completed,
            n: n(tasks.completed),
            failed: n(typeof tasks.failed === "number" ? tasks.failed : 0),
          })
        : null,
    ].filter(Boolean);
    return parts.length ? parts.join(" · ") : null;
  }
  if (type === "broadcast.email")
    return [
      typeof r.sent === "number" ? t("tasks:result.emailsSent", { count: r.sent, n: n(r.sent) }) : null,
      typeof r.failed === "number" && r.failed ? t("tasks:result.failed", { n: n(r.failed) }) : null,
    ]
      .filter(Boolean)
      .join(" · ");
  if (type === "users.import" && typeof r.created === "number")
    return t("tasks:result.imported", {
      created: n(r.created),
      updated: n(Number(r.updated ?? 0)),
      skipped: n(Number(r.skipped ?? 0)),
      failed: n(Number(r.failed ?? 0)),
    });
  if (type === "users.bulk" && typeof r.done === "number") {
    const refused = Number(r.refused ?? 0);
    const reasons = Array.isArray(r.reasonMessages)
      ? (r.reasonMessages as Message[]).map((m) => say(t, m)).join(" ")
      : "";
    return [
      t("tasks:result.changed", { count: r.done, n: n(r.done) }),
      r.unchanged ? t("tasks:result.unchanged", { n: n(Number(r.unchanged)) }) : null,
      refused ? t("tasks:result.refused", { n: n(refused), reasons }).trim() : null,
    ]
      .filter(Boolean)
      .join(" · ");
  }
  return typeof r.rows === "number" ? t("tasks:result.rows", { count: r.rows, n: n(r.rows) }) : null;
}

export function TaskItem({ task }: { task: TrackedTask }) {
  const { t, i18n } = useTranslation();
  const done = isFinal(task.status);
  const now = useNow(!done);
  const end = task.completedAt ? Date.parse(task.completedAt) : now;
  const result = (task.result ?? {}) as { error?: unknown };
  const label = taskLabel(t, task.type);
  const input = taskInputSummary(t, i18n.language, task.type, task.payload);
  const download = taskDownload(t, task);
  const summary =
    task.status === "completed" ? resultSummary(t, i18n.language, task.type, task.result) : null;
  return (
    <li className="rounded-md border p-2 text-sm" data-testid="task-item">
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium">{label}</span>
        <TaskStatusBadge status={task.status} />
      </div>
      {input ? (
        <p className="mt-0.5 break-words text-xs" data-testid="task-input">
          {input}
        </p>
      ) : null}
      <p className="mt-1 text-xs text-muted-foreground">
        {done ? t("tasks:item.took") : t("tasks:item.elapsed")}{" "}
        <time dateTime={task.createdAt}>{elapsed(t, task.createdAt, end)}</time>
      </p>
      {task.status === "processing" && task.progress !== null ? (
        <progress
          className="mt-1 h-1.5 w-full accent-primary"
          max={100}
          value={Math.round(task.progress * 100)}
          aria-label={t("tasks:item.progress", { task: label })}
        />
      ) : null}
      {task.status === "failed" && typeof result.error === "string" ? (
        <p className="mt-1 text-xs text-destructive" data-testid="task-error">
          {taskFailureText(t, result.error)}
        </p>
      ) : null}
      {task.status === "completed" ? (
        <div className="mt-1 flex flex-wrap items-center gap-3 text-xs">
          {download ? (
            <a className={linkVariants()} href={download.href} download>
              {download.label}
            </a>
          ) : null}
          {summary ? <span data-testid="task-result">{summary}</span> : null}
        </div>
      ) : null}
    </li>
  );
}
