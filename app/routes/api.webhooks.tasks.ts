import { z } from "zod";
import { BodyTooLarge, readBodyText } from "../http/body.server";
import { bodyLimitFor } from "../http/body-limits";
import { isSaneRequestId, REQUEST_ID_HEADER, runWithRequestId } from "../http/request-id.server";
import { requestIdOf } from "../http/request-info.server";
import { apiError, payloadTooLarge } from "../http/responses";
import { parseClientJson } from "../security/client-keys";
import { completeTask } from "../tasks/completion.server";
import { taskPayloadSchema } from "../tasks/payload";
import { verifyWebhook } from "../tasks/webhook-signature.server";
import type { Route } from "./+types/api.webhooks.tasks";

const MAX_BODY_BYTES = bodyLimitFor("/api/webhooks/tasks");

const completionSchema = z.object({
  taskId: z.string().min(1).max(100),
  status: z.enum(["completed", "failed"]),
  // Deeper than the payload limits, JSON.stringify overflows the stack.
  result: taskPayloadSchema.optional(),
  // A run given up and handed on cannot finish the task; absent (an older sender): any run.
  attempt: z.number().int().min(0).optional(),
});

export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== "POST")
    return apiError(405, "method_not_allowed", {}, { headers: { Allow: "POST" } });
  let raw: string;
  try {
    raw = await readBodyText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) return payloadTooLarge(MAX_BODY_BYTES);
    throw error;
  }
  // The signature covers the exact bytes received, so it is checked before anything parses them.
  const deliveryId = verifyWebhook(raw, request.headers);
  if (!deliveryId) return apiError(401, "unauthorized", { reason: "invalid_signature" });

  const json = parseClientJson(raw);
  if (!json.ok) return apiError(400, "invalid_request", { message: "The body must be JSON." });
  const body = completionSchema.safeParse(json.value);
  if (!body.success) {
    return apiError(400, "invalid_request", {
      issues: body.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  // A delivery signed for one task must not apply to another, nor spend its replay slot.
  if (deliveryId !== body.data.taskId)
    return apiError(400, "invalid_request", { message: "webhook-id must be the task id." });
  // Processed under the id of the request that started the task, so one reference finds the whole story (decision 026).
  const started = request.headers.get(REQUEST_ID_HEADER);
  const outcome = await runWithRequestId(isSaneRequestId(started) ? started : requestIdOf(context), () =>
    completeTask(deliveryId, {
      taskId: body.data.taskId,
      status: body.data.status,
      result: body.data.result ?? null,
      attempt: body.data.attempt,
    }),
  );
  if (outcome.kind === "not_found") return apiError(404, "not_found");
  return Response.json({ ok: true });
}

export function loader() {
  return apiError(405, "method_not_allowed", {}, { headers: { Allow: "POST" } });
}
