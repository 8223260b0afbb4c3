import { requirePermission } from "../auth/guard.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import { deleteEndpoint, endpointPatch, getEndpoint, updateEndpoint } from "../webhooks/endpoints.server";
import type { Route } from "./+types/api.webhook-endpoints.$id";

/** GET /api/webhook-endpoints/:id */
export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  try {
    return Response.json(await getEndpoint(args.params.id));
  } catch (error) {
    return domainAnswer(error);
  }
}

/** PATCH (any of url, description, events, enabled) or DELETE /api/webhook-endpoints/:id */
export async function action(args: Route.ActionArgs) {
  const method = args.request.method;
  if (method !== "PATCH" && method !== "DELETE") return methodNotAllowed("GET, PATCH, DELETE");
  const user = await requirePermission(args, "settings.manage");
  try {
    if (method === "DELETE") {
      await deleteEndpoint(user, args.params.id, args);
      return new Response(null, { status: 204 });
    }
    const body = await jsonBody(args.request, endpointPatch);
    if (!body.ok) return body.response;
    return Response.json(await updateEndpoint(user, args.params.id, body.value, args));
  } catch (error) {
    return domainAnswer(error);
  }
}
