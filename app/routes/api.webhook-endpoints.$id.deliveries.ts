import { requirePermission } from "../auth/guard.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import { deliveryQuery, listDeliveries, replaySince } from "../webhooks/deliveries.server";
import { getEndpoint, replay } from "../webhooks/endpoints.server";
import type { Route } from "./+types/api.webhook-endpoints.$id.deliveries";

/** GET ?status=&type=&limit=: the endpoint's messages, newest first, each with its attempts. */
export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  try {
    await getEndpoint(args.params.id);
  } catch (error) {
    return domainAnswer(error);
  }
  const q = deliveryQuery.parse(Object.fromEntries(new URL(args.request.url).searchParams));
  return Response.json({ deliveries: await listDeliveries(args.params.id, q) });
}

/** POST {since}: "Replay since …": every message of the endpoint since then, sent again. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("GET, POST");
  const user = await requirePermission(args, "settings.manage");
  const body = await jsonBody(args.request, replay);
  if (!body.ok) return body.response;
  try {
    return Response.json({ replayed: await replaySince(user, args.params.id, body.value.since, args) });
  } catch (error) {
    return domainAnswer(error);
  }
}
