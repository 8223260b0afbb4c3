import { z } from "zod";
import { requireSomewhere } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { revokeGrant } from "../users/grants.server";
import { domainAnswer, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.users.$id.roles.$grantId";

const idSchema = z.string().uuid();

export function loader() {
  return methodNotAllowed("DELETE");
}

/** DELETE: 204, the grant gone; the same escalation rule as granting, in the grant's scope. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "DELETE") return methodNotAllowed("DELETE");
  const user = await requireSomewhere(args, "user.update");
  const id = idSchema.safeParse(args.params.id);
  const grant = idSchema.safeParse(args.params.grantId);
  if (!id.success || !grant.success) return apiError(404, "not_found");
  try {
    await revokeGrant(user, id.data, grant.data, args);
    return new Response(null, { status: 204 });
  } catch (error) {
    return domainAnswer(error);
  }
}
