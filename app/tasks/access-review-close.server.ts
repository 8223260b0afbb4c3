import type { SessionUser } from "../auth/session.server";
import { Conflict } from "../domain-errors";
import { claimReviewClose, mayClose } from "../users/access-reviews.server";
import { REVIEW_CLOSE_TASK } from "./access-review-apply.server";
import { type CreateOutcome, createTask } from "./create-task.server";

// Closing an access review from the close endpoint or the review page: a task
// (access_review.close, app/tasks/access-review-apply.server.ts) whose transaction claims the review.

/** The close endpoint's and the page's start: the task's transaction claims the review. */
export async function startReviewClose(actor: SessionUser, reviewId: string): Promise<CreateOutcome> {
  if (!(await mayClose(reviewId))) throw new Conflict("access.review.notOpen");
  return createTask(actor, { type: REVIEW_CLOSE_TASK, payload: { review: reviewId } }, (taskId, trx) =>
    claimReviewClose(trx, reviewId, taskId),
  );
}
