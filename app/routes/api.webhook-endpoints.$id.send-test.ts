import { requirePermission } from "../auth/guard.server";
import { domainAnswer, methodNotAllowed } from "../webhooks/api-answers.server";
import { sendTest } from "../webhooks/endpoints.server";
import type { Route } from "./+types/api.webhook-endpoints.$id.send-test";

/** POST: queues a `webhook.test` message to this endpoint; 202 with its id (see …/deliveries). */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "settings.manage");
  try {
    return Response.json({ messageId: await sendTest(user, args.params.id, args) }, { status: 202 });
  } catch (error) {
    return domainAnswer(error);
  }
}

export const loader = () => methodNotAllowed("POST");
