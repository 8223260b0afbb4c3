import { useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { showToast } from "../toaster";
import { Button } from "../ui/button";
import { startFailureText, taskToastKey } from "./task-text";
import { useTaskNotifications } from "./use-task-notifications";

/** Starts a task and says so in a toast: started (follow it in the task centre), or why not. */
export function useStartTask() {
  const { t } = useTranslation();
  const { start } = useTaskNotifications();
  const [busy, setBusy] = useState<string | null>(null);
  async function run(type: string, payload?: unknown) {
    setBusy(type);
    const outcome = await start(type, payload);
    setBusy(null);
    showToast(
      outcome.ok
        ? { kind: "info", message: t("tasks:actions.started"), key: taskToastKey(outcome.taskId) }
        : { kind: "error", message: startFailureText(t, type, outcome) },
    );
  }
  return { busy, run };
}

/**
 * "Generate report" and "Export users" on the dashboard home; progress shows in the task centre.
 * The report's demonstration controls live on the task history page (app/routes/dashboard.tasks/report-demo.tsx).
 */
export function TaskActions({ canExportUsers }: { canExportUsers: boolean }) {
  const { t } = useTranslation();
  const { busy, run } = useStartTask();
  return (
    <section aria-labelledby="tasks-heading" className="rounded-lg border bg-card p-4">
      <h2 id="tasks-heading" className="font-semibold">
        {t("tasks:actions.title")}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t("tasks:actions.intro")}</p>
      <div className="mt-3 flex flex-wrap items-end gap-4">
        <Button type="button" pending={busy === "report.generate"} onClick={() => run("report.generate")}>
          {t("tasks:actions.generateReport")}
        </Button>
        {canExportUsers ? (
          <Button
            type="button"
            variant="secondary"
            pending={busy === "users.export"}
            onClick={() => run("users.export")}
          >
            {t("tasks:actions.exportUsers")}
          </Button>
        ) : null}
      </div>
    </section>
  );
}
