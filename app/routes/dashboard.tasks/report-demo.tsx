import { useId, useState } from "react";
import { useStartTask } from "../../components/tasks/task-actions";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { Input } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";

/**
 * Trying the task system out (super admins, on the task history page): a report of a chosen
 * duration, or one that fails on purpose, to watch progress, toasts and failures. Staff never
 * see it, and it stays off the overview, which is for the figures.
 */
export function ReportDemo() {
  const { t } = useTranslation();
  const { busy, run } = useStartTask();
  const [seconds, setSeconds] = useState("15");
  const [fail, setFail] = useState(false);
  const durationId = useId();
  const failId = useId();
  const durationMs = Math.round(Math.min(60, Math.max(0, Number(seconds) || 0)) * 1000);
  return (
    <Card title={t("tasks:demo.title")}>
      <p className="text-sm text-muted-foreground">{t("tasks:demo.intro")}</p>
      <div className="mt-3 flex flex-wrap items-end gap-4">
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
        <Button
          type="button"
          pending={busy === "report.generate"}
          onClick={() => run("report.generate", fail ? { durationMs, fail: true } : { durationMs })}
        >
          {t("tasks:actions.generateReport")}
        </Button>
      </div>
    </Card>
  );
}
