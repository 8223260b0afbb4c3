import { audit } from "../audit/audit.server";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { missingForTaskFile } from "../tasks/file-access.server";
import { findArtifact, findTask } from "../tasks/repository.server";
import type { Route } from "./+types/api.tasks.$id.download";

/** GET /api/tasks/:id/download: the file a task produced (the users.export or audit.export CSV), for its owner. */
export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const task = await findTask(args.params.id);
  if (!task || (task.user_id !== user.id && !user.isSuperAdmin)) return apiError(404, "not_found");
  const missing = missingForTaskFile(user, task);
  if (missing) return apiError(403, "forbidden", { permission: missing });
  const file = await findArtifact(task.id);
  if (!file) return apiError(404, "not_found");
  await audit(args, {
    action: "task.download",
    actor: user,
    target: { type: "task", id: task.id },
    details: { filename: file.filename },
  });
  return new Response(file.content, {
    headers: {
      "Content-Type": file.content_type,
      "Content-Disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
      "Cache-Control": "private, no-store",
    },
  });
}
