import { z } from "zod";
import { reviewDecisionInput } from "../access/access-review-schemas";
import { refuseWhileImpersonating, requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { decideReviewItems, getAccessReview } from "../users/access-reviews.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access-reviews.$id.items.$itemId";

// Keep or revoke one item: 403 on one's own grant or without the role there, 409 once closing.

const uuid = z.string().uuid();

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "roles.manage");
  refuseWhileImpersonating(args, user);
  const id = uuid.safeParse(args.params.id);
  const itemId = uuid.safeParse(args.params.itemId);
  if (!id.success || !itemId.success) return apiError(404, "not_found");
  const body = await jsonBody(args.request, reviewDecisionInput);
  if (!body.ok) return body.response;
  try {
    await decideReviewItems(user, id.data, [itemId.data], body.value.decision, args);
    const review = await getAccessReview(user, id.data);
    return Response.json(review.items.find((i) => i.id === itemId.data));
  } catch (error) {
    return domainAnswer(error);
  }
}
