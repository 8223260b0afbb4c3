import { requirePermission } from "../auth/guard.server";
import { domainAnswer, methodNotAllowed } from "../webhooks/api-answers.server";
import { rotateSecret } from "../webhooks/endpoints.server";
import type { Route } from "./+types/api.webhook-endpoints.$id.rotate-secret";

/** POST: a new secret, shown only here; the old one signs beside it for 24 hours. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "settings.manage");
  try {
    return Response.json(await rotateSecret(user, args.params.id, args));
  } catch (error) {
    return domainAnswer(error);
  }
}

export const loader = () => methodNotAllowed("POST");
