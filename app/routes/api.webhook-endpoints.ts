import { requirePermission } from "../auth/guard.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import { createEndpoint, endpointInput, listEndpoints } from "../webhooks/endpoints.server";
import type { Route } from "./+types/api.webhook-endpoints";

/** GET /api/webhook-endpoints: every endpoint, without secrets. */
export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  return Response.json({ endpoints: await listEndpoints() });
}

/** POST /api/webhook-endpoints {url, events, description?, enabled?}: 201 with the secret, shown only here. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("GET, POST");
  const user = await requirePermission(args, "settings.manage");
  const body = await jsonBody(args.request, endpointInput);
  if (!body.ok) return body.response;
  try {
    const { endpoint, secret } = await createEndpoint(user, body.value, args);
    return Response.json({ ...endpoint, secret }, { status: 201 });
  } catch (error) {
    return domainAnswer(error);
  }
}
