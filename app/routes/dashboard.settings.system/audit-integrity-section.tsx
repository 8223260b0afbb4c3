import { useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import type { AuditIntegrity } from "../../audit/integrity";
import { useFormat } from "../../components/format";
import { startFailureText } from "../../components/tasks/task-text";
import { useTaskNotifications } from "../../components/tasks/use-task-notifications";
import { showToast } from "../../components/toaster";
import { Alert } from "../../components/ui/alert";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";

/**
 * The audit chain's state (docs/decisions/031-tamper-evident-audit-log.md): the last verification
 * and the last signed checkpoint, and a verification on demand, run as a background task whose
 * progress shows here; the page asks for its data again when it ends.
 */
export function AuditIntegritySection({ integrity }: { integrity: AuditIntegrity }) {
  const { t } = useTranslation();
  const { formatDateTime, formatNumber } = useFormat();
  const { revalidate } = useRevalidator();
  const [taskId, setTaskId] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  // Follows only the verification it starts (the header's task centre keeps the stream open anyway).
  const { tasks, start } = useTaskNotifications({ live: starting || taskId !== null });
  const task = taskId ? tasks.find((t) => t.id === taskId) : undefined;
  const running =
    starting || (task !== undefined && (task.status === "pending" || task.status === "processing"));
  const finished = task?.status === "completed" || task?.status === "failed";
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (finished && seen.current !== taskId) {
      seen.current = taskId;
      void revalidate();
    }
  }, [finished, taskId, revalidate]);

  const last = integrity.lastVerification;
  return (
    <Card title={t("settings:integrity.title")}>
      <div className="flex flex-col gap-3 text-sm">
        <p className="text-muted-foreground">{t("settings:integrity.intro")}</p>
        <div role="status" aria-live="polite" className="flex flex-col gap-2">
          {last === null ? (
            <p>{t("settings:integrity.never")}</p>
          ) : last.ok ? (
            <Alert variant="success">
              {t("settings:integrity.intact", {
                when: formatDateTime(last.at),
                rows: formatNumber(last.rows),
                upTo: last.upTo ? formatDateTime(last.upTo) : "—",
              })}
            </Alert>
          ) : (
            <Alert variant="destructive">
              {t("settings:integrity.broken", { when: formatDateTime(last.at), message: last.message ?? "" })}
            </Alert>
          )}
          {running ? (
            <p>
              {task?.progress != null
                ? t("settings:integrity.progress", { percent: Math.round(task.progress * 100) })
                : t("settings:integrity.waiting")}
            </p>
          ) : null}
        </div>
        <p>
          {integrity.lastCheckpointAt
            ? t("settings:integrity.checkpoint", { when: formatDateTime(integrity.lastCheckpointAt) })
            : t("settings:integrity.noCheckpoint")}
        </p>
        <div>
          <Button
            type="button"
            variant="secondary"
            pending={running}
            onClick={async () => {
              setStarting(true);
              const outcome = await start("audit.verify", {});
              setStarting(false);
              if (outcome.ok) setTaskId(outcome.taskId);
              else showToast({ kind: "error", message: startFailureText(t, "audit.verify", outcome) });
            }}
          >
            {t("settings:integrity.verify")}
          </Button>
        </div>
      </div>
    </Card>
  );
}
