import { can } from "../access/check";
import { patchRoleSchema } from "../access/role-schemas";
import { patchRole } from "../access/roles-admin.server";
import { requireUser } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.roles.$name";

// One role's label, description and permissions, under the matrix's escalation rules
// (docs/http-contract.md, "Roles API").

export function loader() {
  return methodNotAllowed("PATCH");
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "PATCH") return methodNotAllowed("PATCH");
  const user = await requireUser(args);
  if (!can(user, "roles.manage")) return apiError(403, "forbidden", { permission: "roles.manage" });
  const body = await jsonBody(args.request, patchRoleSchema);
  if (!body.ok) return body.response;
  try {
    return Response.json(await patchRole(user, args.params.name, body.value, args));
  } catch (error) {
    return domainAnswer(error);
  }
}
