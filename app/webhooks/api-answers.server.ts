import type { z } from "zod";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { BodyTooLarge, readBodyText } from "../http/body.server";
import { apiError, payloadTooLarge } from "../http/responses";

// What /api/webhook-endpoints and /api/webhook-deliveries answer besides their data (the contract's
// `{"error": CODE, …}`), so each route stays a few lines.

const BODY_LIMIT = 16 * 1024;

/** The body as `schema` has it, or the answer refusing it (400, 413). */
export async function jsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<{ ok: true; value: z.output<S> } | { ok: false; response: Response }> {
  let body: unknown;
  try {
    const text = await readBodyText(request, BODY_LIMIT);
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    if (error instanceof BodyTooLarge) return { ok: false, response: payloadTooLarge(BODY_LIMIT) };
    return { ok: false, response: apiError(400, "invalid_request", { message: "The body must be JSON." }) };
  }
  const parsed = schema.safeParse(body);
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
  if (error instanceof InvalidInput)
    return apiError(400, "invalid_request", { field: error.field, message: error.message });
  throw error;
}

export function methodNotAllowed(allow: string): Response {
  return apiError(405, "method_not_allowed", {}, { headers: { Allow: allow } });
}
