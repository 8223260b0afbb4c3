import { can } from "../access/check";
import { mayAnywhere } from "../access/reach.server";
import { roleGrants } from "../access/role-cache.server";
import { roleForApi } from "../access/roles-admin.server";
import { requireUser } from "../auth/guard.server";
import { apiError } from "../http/responses";
import type { Route } from "./+types/api.roles";

// The roles, in the role order, for integrators and the grant forms: anyone who may change
// someone's roles somewhere, or the roles themselves, needs their names (docs/http-contract.md, "Roles API").

export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  if (!can(user, "roles.manage") && !mayAnywhere(user, "user.update"))
    return apiError(403, "forbidden", { permission: "roles.manage" });
  const roles = [...(await roleGrants()).values()].map(roleForApi);
  return Response.json({ roles }, { headers: { "Cache-Control": "private, no-store" } });
}
