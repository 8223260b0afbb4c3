import { requirePermission } from "../auth/guard.server";
import { listTemplates } from "../mail/email-templates.server";
import { methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.email-templates";

// Every email type in every language with the words in effect (docs/http-contract.md, "Email templates").

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  return Response.json(await listTemplates());
}

export function action() {
  return methodNotAllowed("GET");
}
