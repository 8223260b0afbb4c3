import { accessReviewInput } from "../access/access-review-schemas";
import { refuseWhileImpersonating, requirePermission } from "../auth/guard.server";
import { createAccessReview, listAccessReviews } from "../users/access-reviews.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access-reviews";

// Access reviews (docs/http-contract.md, "Access reviews"): the newest, and opening one.

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "roles.manage");
  return Response.json({ reviews: await listAccessReviews() });
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("GET, POST");
  const user = await requirePermission(args, "roles.manage");
  refuseWhileImpersonating(args, user);
  const body = await jsonBody(args.request, accessReviewInput);
  if (!body.ok) return body.response;
  try {
    return Response.json(await createAccessReview(user, body.value, args), { status: 201 });
  } catch (error) {
    return domainAnswer(error);
  }
}
