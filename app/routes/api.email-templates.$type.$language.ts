import { requirePermission } from "../auth/guard.server";
import { resetTemplate, saveTemplate } from "../mail/email-templates.server";
import { templateChangeSchema } from "../mail/template-schemas";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.email-templates.$type.$language";

// One template: PUT changes the given fields (400 on any wrong one, nothing saved), DELETE restores
// the product's words; 403 on sign-in, verification, reset, invitation and security notices unless
// super admin, 404 for a type or language the product does not have.

export function loader() {
  return methodNotAllowed("PUT, DELETE");
}

export async function action(args: Route.ActionArgs) {
  const method = args.request.method;
  if (method !== "PUT" && method !== "DELETE") return methodNotAllowed("PUT, DELETE");
  const user = await requirePermission(args, "settings.manage");
  const { type, language } = args.params;
  try {
    if (method === "DELETE") return Response.json(await resetTemplate(user, type, language, args));
    const body = await jsonBody(args.request, templateChangeSchema);
    if (!body.ok) return body.response;
    return Response.json(await saveTemplate(user, type, language, body.value, args));
  } catch (error) {
    return domainAnswer(error);
  }
}
