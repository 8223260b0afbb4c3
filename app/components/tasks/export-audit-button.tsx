import { useState } from "react";
import { showToast } from "../toaster";
import { Button } from "../ui/button";
import { useTaskNotifications } from "./use-task-notifications";

/** Starts an audit.export task for the filters on screen; the file arrives in the task centre. */
export function ExportAuditButton({ filters }: { filters: Record<string, string> }) {
  const { start } = useTaskNotifications();
  const [busy, setBusy] = useState(false);
  return (
    <Button
      type="button"
      variant="secondary"
      pending={busy}
      onClick={async () => {
        setBusy(true);
        const outcome = await start("audit.export", filters);
        setBusy(false);
        showToast(
          outcome.ok
            ? {
                kind: "info",
                message: "Export started. The CSV link appears in the task centre when it is ready.",
              }
            : { kind: "error", message: outcome.message },
          { result: true },
        );
      }}
    >
      Export CSV
    </Button>
  );
}
