import { ListChecks } from "lucide-react";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { showToast } from "../toaster";
import { countBadgeVariants } from "../ui/badge";
import { buttonVariants } from "../ui/button";
import { cn } from "../ui/cn";
import { linkVariants } from "../ui/link";
import { Popover, PopoverContent, PopoverTrigger } from "../ui/popover";
import { Tooltip } from "../ui/tooltip";
import { useHydrated } from "../use-hydrated";
import { taskInputSummary } from "./task-input";
import { TaskItem } from "./task-item";
import { taskStore } from "./task-store";
import { taskDownload, taskFailureText, taskLabel, taskToastKey } from "./task-text";
import { useTaskNotifications } from "./use-task-notifications";

/** The header's task centre: a badge with the running count and a popover with the user's tasks. */
export function TaskCentre() {
  const { t, i18n } = useTranslation();
  const { tasks, running, loaded } = useTaskNotifications();
  const [open, setOpen] = useState(false);

  useEffect(() => {
    taskStore.onFinished((task) => {
      const name = taskLabel(t, task.type);
      const error = (task.result as { error?: unknown } | null)?.error;
      const input = taskInputSummary(t, i18n.language, task.type, task.payload);
      const download = taskDownload(t, task);
      const key = taskToastKey(task.id);
      showToast(
        task.status === "completed"
          ? {
              key,
              settles: true,
              kind: "success",
              message: input
                ? t("tasks:toast.finishedWith", { task: name, input })
                : t("tasks:toast.finished", { task: name }),
              ...(download ? { download } : {}),
            }
          : {
              key,
              settles: true,
              kind: "error",
              message:
                typeof error === "string"
                  ? t("tasks:toast.failedBecause", { task: name, error: taskFailureText(t, error) })
                  : t("tasks:toast.failed", { task: name }),
            },
      );
    });
  }, [t, i18n.language]);

  const label = t("tasks:centre.button", { count: running });
  const className = cn(buttonVariants({ variant: "ghost", size: "icon" }), "relative");
  const face = (
    <>
      <ListChecks aria-hidden className="size-5" />
      {running > 0 ? (
        <span aria-hidden data-testid="task-badge" className={countBadgeVariants()}>
          {running}
        </span>
      ) : null}
    </>
  );
  // The popover's machinery once scripts run (use-hydrated.ts); the same button before.
  const hydrated = useHydrated();
  if (!hydrated)
    return (
      <button
        type="button"
        aria-haspopup="dialog"
        aria-expanded={false}
        aria-label={label}
        className={className}
      >
        {face}
      </button>
    );
  return (
    <Popover open={open} onOpenChange={setOpen}>
      <Tooltip content={t("tasks:centre.title")}>
        <PopoverTrigger aria-label={label} className={className}>
          {face}
        </PopoverTrigger>
      </Tooltip>
      <PopoverContent label={t("tasks:centre.label")} className="max-h-[70vh] w-96 overflow-y-auto">
        <h2 className="px-2 py-1 text-sm font-semibold">{t("tasks:centre.title")}</h2>
        {/* Status changes are announced; the toaster announces completions too. */}
        <ul aria-live="polite" className="flex flex-col gap-1" data-testid="task-list">
          {tasks.map((task) => (
            <TaskItem key={task.id} task={task} />
          ))}
        </ul>
        {loaded && tasks.length === 0 ? (
          <p className="px-2 py-3 text-sm text-muted-foreground">{t("tasks:centre.empty")}</p>
        ) : null}
        <p className="mt-2 border-t px-2 pt-2 text-sm">
          <Link to="/dashboard/tasks" className={linkVariants()} onClick={() => setOpen(false)}>
            {t("tasks:history.all")}
          </Link>
        </p>
      </PopoverContent>
    </Popover>
  );
}
