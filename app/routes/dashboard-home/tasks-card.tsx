import { useRevalidateOnTaskChange } from "../../components/tasks/use-task-notifications";
import { useTranslation } from "../../i18n/use-translation";
import type { TaskStatus } from "../../tasks/task-types";
import { StatCard } from "./stat-card";

/**
 * The tasks count on the home page. It follows the task centre: the same store (fed by the event
 * stream) tells it when one of the viewer's tasks starts or finishes, and the counts are asked
 * again from the server (which also knows tasks the store does not hold), without a reload.
 */
export function TasksCard({
  title,
  counts,
  own,
}: {
  title: string;
  counts: Record<string, number>;
  /** The viewer's own tasks: each count opens the task history filtered to it. */
  own: boolean;
}) {
  const { t } = useTranslation();
  useRevalidateOnTaskChange();

  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const detail = (status: TaskStatus, label: string) => ({
    label,
    to: own ? `/dashboard/tasks?status=${status}` : undefined,
  });
  return (
    <StatCard
      title={title}
      value={total}
      testId="tasks-card"
      details={[
        detail("pending", t("overview:tasks.pending", { n: counts.pending ?? 0 })),
        detail("processing", t("overview:tasks.processing", { n: counts.processing ?? 0 })),
        detail("completed", t("overview:tasks.completed", { n: counts.completed ?? 0 })),
        detail("failed", t("overview:tasks.failed", { n: counts.failed ?? 0 })),
      ]}
    />
  );
}
