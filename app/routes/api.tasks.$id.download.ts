import { requirePermission } from "../access/guard.server";
import { audit } from "../audit/audit.server";
import { apiError } from "../http/responses";
import { findArtifact, findTask } from "../tasks/repository.server";
import type { Route } from "./+types/api.tasks.$id.download";

/** GET /api/tasks/:id/download: the file a task produced (the users.export CSV), for its owner. */
export async function loader(args: Route.LoaderArgs) {
  // The file holds user data, so user.read is checked again: it may have been revoked since.
  const user = await requirePermission(args, "user.read");
  const task = await findTask(args.params.id);
  if (!task || (task.user_id !== user.id && !user.isSuperAdmin)) return apiError(404, "not_found");
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
