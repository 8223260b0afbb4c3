import { z } from "zod";
import { db } from "../../db.server";
import { english } from "../../i18n/english.server";
import { applyReview, REVIEW_CLOSE_TASK } from "../access-review-apply.server";
import { defineTask, TaskError } from "../definition.server";

// Started by POST /api/access-reviews/:id/close and the review page, whose transaction claims the
// review for this task (app/tasks/access-review-close.server.ts). A task of this type started any
// other way finds the review not claimed for it and changes nothing.
export const accessReviewClose = defineTask({
  type: REVIEW_CLOSE_TASK,
  permission: "roles.manage",
  // Revokes with the closer's and the deciders' roles, which a narrower API token must not widen.
  pageOnly: true,
  // Each item's outcome is kept as it is applied, so a second run carries on where one stopped.
  rerunnable: true,
  timeoutMs: 15 * 60_000,
  payload: z.object({ review: z.string().uuid() }).strict(),
  async run({ review }, { taskId, userId, signal, progress }) {
    const claimed = await db()
      .selectFrom("access_review")
      .select(["status", "task_id"])
      .where("id", "=", review)
      .executeTakeFirst();
    if (!claimed || claimed.status !== "closing" || claimed.task_id !== taskId)
      throw new TaskError(english("access.review.notOpen"));
    const result = await applyReview(review, userId, progress, signal);
    return { ...result, evidenceUrl: `/api/access-reviews/${review}/evidence` };
  },
});
