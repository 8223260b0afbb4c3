import { z } from "zod";
import { denyInput } from "../access/access-request-schemas";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { decideAccessRequest } from "../users/access-requests.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access-requests.$id.deny";

// The decider's answer (docs/http-contract.md, "Access requests"): 403 for one's own request or
// without the role's permissions there, 409 once it is no longer pending.

const idSchema = z.string().uuid();

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "roles.manage");
  const id = idSchema.safeParse(args.params.id);
  if (!id.success) return apiError(404, "not_found");
  const body = await jsonBody(args.request, denyInput);
  if (!body.ok) return body.response;
  try {
    return Response.json(
      await decideAccessRequest(user, id.data, { approve: false, comment: body.value.comment }, args),
    );
  } catch (error) {
    return domainAnswer(error);
  }
}
