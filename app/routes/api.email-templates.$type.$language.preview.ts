import { requirePermission } from "../auth/guard.server";
import { previewTemplate } from "../mail/template-preview.server";
import { templateChangeSchema } from "../mail/template-schemas";
import { domainAnswer, jsonBody, methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.email-templates.$type.$language.preview";

// The template rendered as a mail of it would be, with the body's unsaved fields over the saved ones.

export function loader() {
  return methodNotAllowed("POST");
}

export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const user = await requirePermission(args, "settings.manage");
  const body = await jsonBody(args.request, templateChangeSchema);
  if (!body.ok) return body.response;
  try {
    return Response.json(await previewTemplate(user, args.params.type, args.params.language, body.value));
  } catch (error) {
    return domainAnswer(error);
  }
}
