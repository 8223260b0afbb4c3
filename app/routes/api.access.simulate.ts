import { simulate, simulateInput } from "../access/simulate.server";
import { requirePermission } from "../auth/guard.server";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.access.simulate";

// Who would gain and lose what (docs/http-contract.md, "Simulate"): nothing is written.

export function loader() {
  return methodNotAllowed("POST");
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  await requirePermission(args, "roles.manage");
  const body = await jsonBody(args.request, simulateInput);
  if (!body.ok) return body.response;
  try {
    return Response.json(await simulate(body.value), { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return domainAnswer(error);
  }
}
