import { useEffect, useRef } from "react";
import { useRevalidator } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { useTaskNotifications } from "../tasks/use-task-notifications";
import { StatCard } from "./stat-card";

/**
 * The tasks count on the home page. It follows the task centre: the same store (fed by the event
 * stream) tells it when one of the viewer's tasks starts or finishes, and the counts are asked
 * again from the server (which also knows tasks the store does not hold), without a reload.
 */
export function TasksCard({ title, counts }: { title: string; counts: Record<string, number> }) {
  const { t } = useTranslation();
  const { tasks, loaded } = useTaskNotifications();
  const revalidator = useRevalidator();
  const revalidate = revalidator.revalidate;
  const signature = tasks.map((t) => `${t.id}:${t.status}`).join(",");
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (!loaded) return;
    if (seen.current !== null && seen.current !== signature) void revalidate();
    seen.current = signature;
  }, [loaded, signature, revalidate]);

  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return (
    <StatCard
      title={title}
      value={total}
      testId="tasks-card"
      details={t("overview:tasks.details", {
        pending: counts.pending ?? 0,
        processing: counts.processing ?? 0,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
      })}
    />
  );
}
