import { useEffect, useRef } from "react";
import { useFetcher, useRevalidator } from "react-router";
import type { ReviewView } from "../../access/access-review-schemas";
import { useFormat } from "../../components/format";
import { TaskItem } from "../../components/tasks/task-item";
import { useTaskNotifications } from "../../components/tasks/use-task-notifications";
import { Alert } from "../../components/ui/alert";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

/** What the review covers and when it is due; closing it, its progress, and then its evidence. */
export function ReviewState({ review }: { review: ReviewView }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.data && fetcher.data.intent === "close" ? fetcher.data : undefined;
  const taskId = (answer && "taskId" in answer ? answer.taskId : undefined) ?? review.taskId;
  const closing = review.status === "closing" || Boolean(answer?.ok && review.status === "open");
  const { tasks } = useTaskNotifications({ live: closing });
  const task = taskId ? tasks.find((x) => x.id === taskId) : undefined;
  const { revalidate } = useRevalidator();
  const seen = useRef<string | null>(null);
  // Closed by someone else, or by the daily cleanup: no task of this reader's to follow.
  useEffect(() => {
    if (review.status !== "closing" || task) return;
    const timer = setInterval(() => void revalidate(), 3000);
    return () => clearInterval(timer);
  }, [review.status, task, revalidate]);
  // The page reads the closed review (outcomes, evidence) once its task ends.
  useEffect(() => {
    if (task && (task.status === "completed" || task.status === "failed") && seen.current !== task.id) {
      seen.current = task.id;
      void revalidate();
    }
  }, [task, revalidate]);
  const { counts } = review;
  return (
    <Card title={t("access:reviews.summary")}>
      <div className="flex flex-col gap-3 text-sm">
        <p>
          {[review.role?.label, review.team?.name].filter(Boolean).join(" · ")}
          {" · "}
          {t("access:reviews.dueOn", { when: formatDateTime(review.dueAt) })}
          {" · "}
          {t(`access:reviews.overdue.${review.onOverdue}`)}
        </p>
        <p data-testid="review-counts">
          {t("access:reviews.counts", {
            keep: counts.keep,
            revoke: counts.revoke,
            undecided: counts.undecided,
          })}
        </p>
        <div role="status" aria-live="polite" data-testid="review-status" className="flex flex-col gap-2">
          <p className="font-medium">
            {t(`access:reviews.status.${closing && review.status === "open" ? "closing" : review.status}`)}
          </p>
          {closing && task ? (
            <ul>
              <TaskItem task={task} />
            </ul>
          ) : null}
          {review.status === "closed" && review.evidenceSha256 ? (
            <Alert variant="success">
              <p>{t("access:reviews.sealed", { when: formatDateTime(review.closedAt ?? review.dueAt) })}</p>
              <p className="mt-1 break-all font-mono text-xs" data-testid="evidence-sha256">
                SHA-256 {review.evidenceSha256}
              </p>
              <a
                className="mt-2 inline-block font-medium underline underline-offset-2"
                href={`/api/access-reviews/${review.id}/evidence`}
                download
              >
                {t("access:reviews.evidence")}
              </a>
            </Alert>
          ) : null}
        </div>
        {/* Outside the live region: its clock ticks every second. */}
        {closing && task ? (
          <ul>
            <TaskItem task={task} />
          </ul>
        ) : null}
        {review.status === "open" && !closing ? (
          <fetcher.Form method="post" className="flex flex-col gap-2">
            <input type="hidden" name="intent" value="close" />
            <input type="hidden" name="review" value={review.id} />
            <p className="text-muted-foreground">
              {counts.undecided
                ? t(`access:reviews.closeUndecided.${review.onOverdue}`, { count: counts.undecided })
                : t("access:reviews.closeHint")}
            </p>
            <div>
              <Button variant="secondary" pending={fetcher.state !== "idle"}>
                {t("access:reviews.close")}
              </Button>
            </div>
            <FormError message={answer && "formError" in answer ? answer.formError : null} />
          </fetcher.Form>
        ) : null}
      </div>
    </Card>
  );
}
