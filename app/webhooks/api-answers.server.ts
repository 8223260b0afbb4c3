import type { z } from "zod";
import { Conflict, InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { BodyTooLarge, readBodyText } from "../http/body.server";
import { apiError, payloadTooLarge } from "../http/responses";
import { CLIENT_JSON_REFUSAL, parseClientJson } from "../security/client-keys";

// What /api/webhook-endpoints and /api/webhook-deliveries answer besides their data (the contract's
// `{"error": CODE, …}`), so each route stays a few lines.

const BODY_LIMIT = 16 * 1024;

/** The body as `schema` has it, or the answer refusing it (400, 413). */
export async function jsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<{ ok: true; value: z.output<S> } | { ok: false; response: Response }> {
  let text: string;
  try {
    text = await readBodyText(request, BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLarge) return { ok: false, response: payloadTooLarge(BODY_LIMIT) };
    text = "{"; // a body that could not be read is answered as one that is no JSON
  }
  const body = text.trim() === "" ? { ok: true as const, value: {} } : parseClientJson(text);
  if (!body.ok) {
    const message = body.problem === "syntax" ? "The body must be JSON." : CLIENT_JSON_REFUSAL[body.problem];
    return { ok: false, response: apiError(400, "invalid_request", { message }) };
  }
  const parsed = schema.safeParse(body.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return {
    ok: false,
    response: apiError(400, "invalid_request", {
      field: issue.path.join(".") || undefined,
      message: issue.message,
    }),
  };
}

/** A domain refusal as JSON (404 a missing record, 403 a rule, 400 a field); anything else is rethrown. */
export function domainAnswer(error: unknown): Response {
  if (error instanceof NotFound) return apiError(404, "not_found", { message: error.message });
  if (error instanceof RuleViolation) return apiError(403, "forbidden", { message: error.message });
  if (error instanceof Conflict) return apiError(409, "conflict", { message: error.message });
  if (error instanceof InvalidInput)
    return apiError(400, "invalid_request", { field: error.field, message: error.message });
  throw error;
}

export function methodNotAllowed(allow: string): Response {
  return apiError(405, "method_not_allowed", {}, { headers: { Allow: allow } });
}
