import { syncPermissions } from "../access/sync.server";
import { audit } from "../audit/audit.server";
import { requireSuperAdmin } from "../auth/guard.server";
import { apiError } from "../http/responses";
import type { Route } from "./+types/api.access.sync";

export async function action(args: Route.ActionArgs) {
  const user = await requireSuperAdmin(args);
  const result = await syncPermissions();
  await audit(args, {
    action: "access.sync",
    actor: user,
    target: { type: "permission", id: null },
    details: { inserted: result.inserted, total: result.total },
  });
  return Response.json(result);
}

export function loader() {
  return apiError(405, "method_not_allowed", {}, { headers: { Allow: "POST" } });
}
