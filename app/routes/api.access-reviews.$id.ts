import { z } from "zod";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { getAccessReview } from "../users/access-reviews.server";
import { domainAnswer } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access-reviews.$id";

// One review with its items and each item's last use (docs/http-contract.md, "Access reviews").

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "roles.manage");
  const id = z.string().uuid().safeParse(args.params.id);
  if (!id.success) return apiError(404, "not_found");
  try {
    return Response.json(await getAccessReview(user, id.data));
  } catch (error) {
    return domainAnswer(error);
  }
}
