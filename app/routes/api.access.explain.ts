import { z } from "zod";
import { can } from "../access/check";
import { explain } from "../access/explain.server";
import { isPermissionKey } from "../access/permissions";
import { mayOnUser } from "../access/reach.server";
import { requireUser } from "../auth/guard.server";
import { apiError } from "../http/responses";
import type { Route } from "./+types/api.access.explain";

// Why someone holds a permission, or what blocks it (docs/http-contract.md, "Explain"): the same
// decide() the guards use. roles.manage, or anyone about their own access.

const uuid = z.string().uuid();

export async function loader(args: Route.LoaderArgs) {
  const viewer = await requireUser(args);
  const params = new URL(args.request.url).searchParams;
  const user = uuid.safeParse(params.get("user") ?? viewer.id);
  const permission = params.get("permission") ?? "";
  const target = params.get("target");
  if (!isPermissionKey(permission))
    return apiError(400, "invalid_request", { field: "permission", message: "Choose a known permission." });
  if (!user.success) return apiError(404, "not_found");
  const manages = can(viewer, "roles.manage");
  if (!manages && user.data !== viewer.id) return apiError(403, "forbidden", { permission: "roles.manage" });
  let targetId: string | undefined;
  if (target !== null) {
    const parsed = uuid.safeParse(target);
    // Asking about someone one cannot see tells nothing, not even that they exist.
    if (!parsed.success || (!manages && !(await mayOnUser(viewer, "user.read", parsed.data))))
      return apiError(404, "not_found");
    targetId = parsed.data;
  }
  const answer = await explain(user.data, permission, targetId);
  if (!answer) return apiError(404, "not_found");
  return Response.json(answer, { headers: { "Cache-Control": "private, no-store" } });
}
