import { accessRequestInput, accessRequestListQuery } from "../access/access-request-schemas";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { createAccessRequest, listAccessRequests } from "../users/access-requests.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access-requests";

// Access requests (docs/http-contract.md, "Access requests"): one's own, and those one may decide.

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const query = accessRequestListQuery.safeParse(Object.fromEntries(new URL(args.request.url).searchParams));
  if (!query.success) return apiError(400, "invalid_request", { field: "status" });
  return Response.json({ requests: await listAccessRequests(user, query.data.status) });
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("GET, POST");
  const user = await requirePermission(args, "dashboard.access");
  const body = await jsonBody(args.request, accessRequestInput);
  if (!body.ok) return body.response;
  try {
    return Response.json(await createAccessRequest(user, body.value, args), { status: 201 });
  } catch (error) {
    return domainAnswer(error);
  }
}
