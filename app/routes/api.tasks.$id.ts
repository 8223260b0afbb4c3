import { requireUser } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { findTask, toView } from "../tasks/repository.server";
import type { Route } from "./+types/api.tasks.$id";

/** GET /api/tasks/:id: the caller's own task (a super admin may read any); 404 for everything else. */
export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  const task = await findTask(args.params.id);
  // Somebody else's task answers exactly like a missing one, so ids cannot be probed.
  if (!task || (task.user_id !== user.id && !user.isSuperAdmin)) return apiError(404, "not_found");
  return Response.json(toView(task));
}

export function action() {
  return apiError(405, "method_not_allowed", {}, { headers: { Allow: "GET" } });
}
