import { useState } from "react";
import { startFailureText, taskToastKey } from "../../components/tasks/task-text";
import { useTaskNotifications } from "../../components/tasks/use-task-notifications";
import { showToast } from "../../components/toaster";
import { Button } from "../../components/ui/button";
import { useTranslation } from "../../i18n/use-translation";

/** The filter fields the export takes from the form it sits in. */
const FILTERS = ["person", "actor", "action", "target", "from", "to", "within"] as const;

/**
 * Starts an audit.export task for the filters as they stand in its form, typed-but-unapplied
 * values included, so the file holds what the reader asked for even before the list caught up.
 * The file arrives in the task centre: CSV for a spreadsheet, JSON Lines for a SIEM.
 */
export function ExportAuditButton({ format = "csv" }: { format?: "csv" | "jsonl" }) {
  const { t } = useTranslation();
  const { start } = useTaskNotifications();
  const [busy, setBusy] = useState(false);
  return (
    <Button
      type="button"
      variant="secondary"
      pending={busy}
      onClick={async (event) => {
        const form = event.currentTarget.form;
        const values = form ? new FormData(form) : new FormData();
        const filters = Object.fromEntries(FILTERS.map((name) => [name, String(values.get(name) ?? "")]));
        setBusy(true);
        const outcome = await start("audit.export", { ...filters, format });
        setBusy(false);
        showToast(
          outcome.ok
            ? {
                kind: "info",
                message: t(
                  format === "jsonl" ? "tasks:exportAudit.jsonStarted" : "tasks:exportAudit.started",
                ),
                key: taskToastKey(outcome.taskId),
              }
            : { kind: "error", message: startFailureText(t, "audit.export", outcome) },
        );
      }}
    >
      {t(format === "jsonl" ? "tasks:exportAudit.jsonButton" : "tasks:exportAudit.button")}
    </Button>
  );
}
