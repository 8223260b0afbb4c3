import { requirePermission } from "../auth/guard.server";
import { domainAnswer, methodNotAllowed } from "../webhooks/api-answers.server";
import { sendAgain } from "../webhooks/deliveries.server";
import type { Route } from "./+types/api.webhook-deliveries.$id.retry";

/** POST: "Send again": the message back in the queue under its own id; 202. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "settings.manage");
  try {
    await sendAgain(user, args.params.id, args);
    return Response.json({ ok: true }, { status: 202 });
  } catch (error) {
    return domainAnswer(error);
  }
}

export const loader = () => methodNotAllowed("POST");
