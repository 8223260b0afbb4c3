import { audit } from "../audit/audit.server";
import { refuseWhileImpersonating, requirePermission, requireUser } from "../auth/guard.server";
import { BodyTooLarge, readBodyText } from "../http/body.server";
import { apiError, payloadTooLarge, tooManyRequests } from "../http/responses";
import { CLIENT_JSON_REFUSAL, parseClientJson } from "../security/client-keys";
import { createTask, MAX_TASK_BODY_BYTES } from "../tasks/create-task.server";
import { taskDefinition } from "../tasks/registry.server";
import { listTasks } from "../tasks/repository.server";
import { taskListQuery as listQuery } from "../tasks/task-list-query";
import type { Route } from "./+types/api.tasks";

export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  const query = listQuery.safeParse(Object.fromEntries(new URL(args.request.url).searchParams));
  if (!query.success) return apiError(400, "invalid_request", { message: "Invalid limit or cursor." });
  return Response.json(await listTasks(user.id, query.data.limit, query.data.cursor));
}

/** 202 before any work runs. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST")
    return apiError(405, "method_not_allowed", {}, { headers: { Allow: "GET, POST" } });
  const user = await requirePermission(args, "dashboard.access");

  let text: string;
  try {
    text = await readBodyText(args.request, MAX_TASK_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) return payloadTooLarge(MAX_TASK_BODY_BYTES);
    text = "{"; // a body that could not be read is answered as one that is no JSON
  }
  const json = parseClientJson(text);
  if (!json.ok)
    return apiError(400, "invalid_request", {
      message:
        json.problem === "syntax"
          ? "The body must be JSON: {type, payload}."
          : CLIENT_JSON_REFUSAL[json.problem],
    });
  const body = json.value;

  // A task acting on other people as its owner would write audit rows without the viewing super admin's name.
  const type = (body as { type?: unknown } | null)?.type;
  if (typeof type === "string" && taskDefinition(type)?.pageOnly) refuseWhileImpersonating(args, user);

  const outcome = await createTask(user, body, (taskId, trx) =>
    audit(
      args,
      {
        action: "task.create",
        actor: user,
        target: { type: "task", id: taskId },
        details: { type: (body as { type: string }).type },
      },
      trx,
    ),
  );
  if (!outcome.ok) {
    if (outcome.status === "too_many_tasks")
      // Its own code, so a client knows to wait for its tasks rather than back off in general.
      return tooManyRequests(outcome.retryAfterSeconds, "too_many_tasks", {
        limit: outcome.limit,
        message: `You already have ${outcome.limit} tasks waiting or running; start another when one finishes.`,
      });
    return outcome.status === 403
      ? apiError(403, "forbidden", { permission: outcome.permission })
      : apiError(400, "invalid_request", { issues: outcome.issues });
  }
  return Response.json(
    { taskId: outcome.taskId },
    { status: 202, headers: { Location: `/api/tasks/${outcome.taskId}` } },
  );
}
