import { useTranslation } from "../../i18n/use-translation";
import { TASK_STATUSES, type TaskStatus } from "../../tasks/task-types";
import { taskStatusText } from "../tasks/task-text";
import { Badge } from "../ui/badge";

export function StatusBadge({ status }: { status: "active" | "disabled" }) {
  const { t } = useTranslation();
  return status === "active" ? (
    <Badge variant="success">{t("users:status.active")}</Badge>
  ) : (
    <Badge variant="destructive">{t("users:status.disabled")}</Badge>
  );
}

export function VerifiedBadge({ verified }: { verified: boolean | number }) {
  const { t } = useTranslation();
  return verified ? (
    <Badge variant="info">{t("users:verified.yes")}</Badge>
  ) : (
    <Badge variant="warning">{t("users:verified.no")}</Badge>
  );
}

const TASK_VARIANT: Record<TaskStatus, "neutral" | "info" | "success" | "destructive"> = {
  pending: "neutral",
  processing: "info",
  completed: "success",
  failed: "destructive",
};

export function TaskStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  const known = (TASK_STATUSES as readonly string[]).includes(status) ? (status as TaskStatus) : null;
  return (
    <Badge variant={known ? TASK_VARIANT[known] : "neutral"}>
      {known ? taskStatusText(t, known) : status}
    </Badge>
  );
}
