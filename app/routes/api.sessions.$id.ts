import { refuseWhileImpersonating, requireSomewhere } from "../auth/guard.server";
import { endSessionsByHandle } from "../auth/sessions-admin.server";
import { domainAnswer, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.sessions.$id";

// Ends one session by its handle: 404 out of reach or gone, 403 for a person one cannot manage.

export function loader() {
  return methodNotAllowed("DELETE");
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "DELETE") return methodNotAllowed("DELETE");
  const user = await requireSomewhere(args, "user.update");
  refuseWhileImpersonating(args, user);
  try {
    await endSessionsByHandle(user, [args.params.id], args);
    return new Response(null, { status: 204 });
  } catch (error) {
    return domainAnswer(error);
  }
}
