import { Form, useSubmit } from "react-router";
import { useFormat } from "../../components/format";
import { useIsPending } from "../../components/forms/use-is-pending";
import { taskInputSummary } from "../../components/tasks/task-input";
import { resultSummary } from "../../components/tasks/task-item";
import { taskStore } from "../../components/tasks/task-store";
import { taskDownload, taskFailureText, taskLabel, taskStatusText } from "../../components/tasks/task-text";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { cardClass } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import { Select } from "../../components/ui/select";
import { useSubmissionDone } from "../../components/users/use-submission-done";
import { TaskStatusBadge } from "../../components/users/user-badges";
import { useTranslation } from "../../i18n/use-translation";
import { isFinal, TASK_STATUSES, type TaskView } from "../../tasks/task-types";

/**
 * The history's filters: a choice applies at once and lives in the URL. Without scripts the
 * Apply button (in <noscript>) sends the form.
 */
export function TaskHistoryFilters({
  types,
  type,
  status,
}: {
  types: string[];
  type: string;
  status: string;
}) {
  const { t } = useTranslation();
  const submit = useSubmit();
  return (
    <Form
      method="get"
      aria-label={t("tasks:history.filters")}
      className="flex flex-wrap items-end gap-3"
      onChange={(event) => submit(event.currentTarget, { replace: true, preventScrollReset: true })}
    >
      <Select label={t("tasks:history.type")} name="type" defaultValue={type}>
        <option value="">{t("tasks:history.anyType")}</option>
        {types.map((code) => (
          <option key={code} value={code}>
            {taskLabel(t, code)}
          </option>
        ))}
      </Select>
      <Select label={t("tasks:history.status")} name="status" defaultValue={status}>
        <option value="">{t("tasks:history.anyStatus")}</option>
        {TASK_STATUSES.map((code) => (
          <option key={code} value={code}>
            {taskStatusText(t, code)}
          </option>
        ))}
      </Select>
      <noscript>
        <Button variant="secondary">{t("tasks:history.apply")}</Button>
      </noscript>
    </Form>
  );
}

/** After a clear, the task centre's list is read again so it no longer shows what is gone. */
function useTaskCentreFollows(intent: string) {
  useSubmissionDone(intent, (ok) => {
    if (ok) taskStore.refresh();
  });
}

/** "Clear finished tasks", behind a confirmation that says how many and what goes with them. */
export function ClearFinishedTasks({ count }: { count: number }) {
  const { t } = useTranslation();
  const pending = useIsPending({ intent: "clear-finished" });
  useTaskCentreFollows("clear-finished");
  if (count === 0) return null;
  return (
    <>
      <Form method="post" id="clear-finished" />
      <ConfirmDialog
        trigger={
          <Button type="button" variant="secondary" pending={pending}>
            {t("tasks:history.clearFinished")}
          </Button>
        }
        title={t("tasks:history.clearFinishedTitle", { count })}
        description={t("tasks:history.clearFinishedDescription", { count })}
        actionLabel={t("tasks:history.clearFinishedAction", { count })}
        cancelLabel={t("tasks:history.cancel")}
        formId="clear-finished"
        value="clear-finished"
      />
    </>
  );
}

/** One's own tasks as cards (no table to scroll sideways on a phone), newest first. */
export function TaskHistoryList({ tasks }: { tasks: TaskView[] }) {
  const { t } = useTranslation();
  useTaskCentreFollows("clear");
  return (
    <ul aria-label={t("tasks:history.listLabel")} className="flex flex-col gap-2" data-testid="task-history">
      {tasks.map((task) => (
        <TaskHistoryItem key={task.id} task={task} />
      ))}
    </ul>
  );
}

function TaskHistoryItem({ task }: { task: TaskView }) {
  const { t, i18n } = useTranslation();
  const { formatDateTime } = useFormat();
  const label = taskLabel(t, task.type);
  const input = taskInputSummary(t, i18n.language, task.type, task.payload);
  const download = taskDownload(t, task);
  const started = formatDateTime(task.createdAt);
  const error = (task.result as { error?: unknown } | null)?.error;
  const summary =
    task.status === "completed" ? resultSummary(t, i18n.language, task.type, task.result) : null;
  const formId = `clear-${task.id}`;
  return (
    <li className={cn(cardClass, "flex flex-col gap-1 p-3 text-sm")} data-testid="task-history-item">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="font-medium">{label}</h2>
        <TaskStatusBadge status={task.status} />
      </div>
      {input ? <p data-testid="task-input">{input}</p> : null}
      <p className="text-muted-foreground">
        {t("tasks:history.started", { when: started })}
        {task.completedAt
          ? ` · ${t("tasks:history.finished", { when: formatDateTime(task.completedAt) })}`
          : null}
      </p>
      {summary ? <p data-testid="task-result">{summary}</p> : null}
      {task.status === "failed" && typeof error === "string" ? (
        <p className="text-destructive">{taskFailureText(t, error)}</p>
      ) : null}
      {download || isFinal(task.status) ? (
        <div className="mt-1 flex flex-wrap items-center gap-3">
          {download ? (
            <a className={linkVariants()} href={download.href} download>
              {download.label}
            </a>
          ) : null}
          {isFinal(task.status) ? (
            <>
              <Form method="post" id={formId}>
                <input type="hidden" name="taskId" value={task.id} />
              </Form>
              <ConfirmDialog
                trigger={
                  <Button
                    type="button"
                    variant="ghost"
                    size="xs"
                    aria-label={t("tasks:history.clearLabel", { task: label, when: started })}
                  >
                    {t("tasks:history.clear")}
                  </Button>
                }
                title={t("tasks:history.clearTitle", { task: label })}
                description={
                  download
                    ? t("tasks:history.clearDescriptionFile", { task: label, when: started })
                    : t("tasks:history.clearDescription", { task: label, when: started })
                }
                actionLabel={t("tasks:history.clearAction")}
                cancelLabel={t("tasks:history.cancel")}
                formId={formId}
                value="clear"
              />
            </>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
