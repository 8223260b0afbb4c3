import { useId, useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { showToast } from "../toaster";
import { Button } from "../ui/button";
import { Input } from "../ui/field";
import { startFailureText } from "./task-text";
import { useTaskNotifications } from "./use-task-notifications";

/**
 * "Generate report" and "Export users" on the dashboard home; progress shows in the task centre.
 * `demoControls` (super admins) adds the report's duration and a simulated failure, for trying the
 * task system out; staff never see them.
 */
export function TaskActions({
  canExportUsers,
  demoControls,
}: {
  canExportUsers: boolean;
  demoControls: boolean;
}) {
  const { t } = useTranslation();
  const { start } = useTaskNotifications();
  const [busy, setBusy] = useState<string | null>(null);
  const [seconds, setSeconds] = useState("15");
  const [fail, setFail] = useState(false);
  const durationId = useId();
  const failId = useId();

  async function run(type: string, payload?: unknown) {
    setBusy(type);
    const outcome = await start(type, payload);
    setBusy(null);
    showToast(
      outcome.ok
        ? { kind: "info", message: t("tasks:actions.started") }
        : { kind: "error", message: startFailureText(t, type, outcome) },
      { result: true },
    );
  }

  const durationMs = Math.round(Math.min(60, Math.max(0, Number(seconds) || 0)) * 1000);
  return (
    <section aria-labelledby="tasks-heading" className="rounded-lg border bg-card p-4">
      <h2 id="tasks-heading" className="font-semibold">
        {t("tasks:actions.title")}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t("tasks:actions.intro")}</p>
      <div className="mt-3 flex flex-wrap items-end gap-4">
        {demoControls ? (
          <>
            <div className="flex flex-col gap-1">
              <label htmlFor={durationId} className="text-sm font-medium">
                {t("tasks:actions.duration")}
              </label>
              <Input
                id={durationId}
                type="number"
                min={0}
                max={60}
                step={0.5}
                value={seconds}
                onChange={(e) => setSeconds(e.target.value)}
                className="mt-0 w-28 px-2 py-1.5"
              />
            </div>
            <div className="flex items-center gap-2 pb-2">
              <input id={failId} type="checkbox" checked={fail} onChange={(e) => setFail(e.target.checked)} />
              <label htmlFor={failId} className="text-sm">
                {t("tasks:actions.simulateFailure")}
              </label>
            </div>
          </>
        ) : null}
        <Button
          type="button"
          pending={busy === "report.generate"}
          onClick={() =>
            run(
              "report.generate",
              !demoControls ? undefined : fail ? { durationMs, fail: true } : { durationMs },
            )
          }
        >
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
