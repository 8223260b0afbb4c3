import { can } from "../access/check";
import { reachOf } from "../access/reach.server";
import { audit } from "../audit/audit.server";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { taskDefinition } from "../tasks/registry.server";
import { findArtifact, findTask } from "../tasks/repository.server";
import type { Route } from "./+types/api.tasks.$id.download";

/** GET /api/tasks/:id/download: the file a task produced (the users.export or audit.export CSV), for its owner. */
export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const task = await findTask(args.params.id);
  if (!task || (task.user_id !== user.id && !user.isSuperAdmin)) return apiError(404, "not_found");
  // The file holds what the task's permission guards (users, audit rows): checked again, since
  // it may have been revoked after the task ran.
  const definition = taskDefinition(task.type);
  const needed = definition?.permission;
  if (needed && !(definition?.scoped ? stillReaches(user, needed, task.result) : can(user, needed)))
    return apiError(403, "forbidden", { permission: needed });
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

/**
 * A scoped task's file holds the people its owner reached when it ran (`result.reach`: null for
 * everyone, else teams): it is theirs to download while they still reach all of them. A file
 * without `reach` was made before it was recorded, by someone holding the permission over everyone.
 */
function stillReaches(user: Parameters<typeof reachOf>[0], permission: string, result: string | null) {
  const now = reachOf(user, permission);
  if (now === null) return true;
  let made: unknown = null;
  try {
    made = (JSON.parse(result ?? "null") as { reach?: unknown } | null)?.reach ?? null;
  } catch {}
  return Array.isArray(made) && made.every((team) => now.includes(team as string));
}
