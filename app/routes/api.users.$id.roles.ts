import { z } from "zod";
import { requireSomewhere } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { grantRole, listGrants } from "../users/grants.server";
import { grantInput } from "../users/user-schemas";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.users.$id.roles";

// One person's grants (docs/http-contract.md, "Role grants"): out of the caller's reach is 404.

const idSchema = z.string().uuid();

export async function loader(args: Route.LoaderArgs) {
  const user = await requireSomewhere(args, "user.read");
  const id = idSchema.safeParse(args.params.id);
  if (!id.success) return apiError(404, "not_found");
  try {
    return Response.json({ grants: await listGrants(user, id.data) });
  } catch (error) {
    return domainAnswer(error);
  }
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("GET, POST");
  const user = await requireSomewhere(args, "user.update");
  const id = idSchema.safeParse(args.params.id);
  if (!id.success) return apiError(404, "not_found");
  const body = await jsonBody(args.request, grantInput);
  if (!body.ok) return body.response;
  try {
    return Response.json(await grantRole(user, id.data, body.value, args), { status: 201 });
  } catch (error) {
    return domainAnswer(error);
  }
}
