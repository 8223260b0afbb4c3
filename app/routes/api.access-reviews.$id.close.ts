import { z } from "zod";
import { refuseWhileImpersonating, requirePermission } from "../auth/guard.server";
import { apiError, tooManyRequests } from "../http/responses";
import { startReviewClose } from "../tasks/access-review-close.server";
import { domainAnswer, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access-reviews.$id.close";

// 202 at once: the revocations and the evidence are a background task (access_review.close).

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "roles.manage");
  refuseWhileImpersonating(args, user);
  const id = z.string().uuid().safeParse(args.params.id);
  if (!id.success) return apiError(404, "not_found");
  try {
    const outcome = await startReviewClose(user, id.data);
    if (outcome.ok)
      return Response.json(
        { taskId: outcome.taskId },
        { status: 202, headers: { Location: `/api/tasks/${outcome.taskId}` } },
      );
    if (outcome.status === "too_many_tasks")
      return tooManyRequests(outcome.retryAfterSeconds, "too_many_tasks", { limit: outcome.limit });
    return outcome.status === 403
      ? apiError(403, "forbidden", { permission: outcome.permission })
      : apiError(400, "invalid_request", { issues: outcome.issues });
  } catch (error) {
    return domainAnswer(error);
  }
}
