import type { z } from "zod";
import { OPERATIONS, type Operation } from "./operations.server";

// For the API tests: an answer the description does not allow is a failure, so the description
// cannot drift from the code. Returns why it is not allowed, or null.

function operationOf(method: string, url: string): Operation | undefined {
  const path = new URL(url, "http://localhost").pathname;
  return OPERATIONS.find((op) => {
    if (op.method !== method.toLowerCase()) return false;
    const pattern = new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}$`);
    return pattern.test(path);
  });
}

export function answerProblem(method: string, url: string, status: number, body: unknown): string | null {
  const op = operationOf(method, url);
  if (!op) return `${method} ${url}: not in the description`;
  const answer = op.answers[status];
  if (!answer)
    return `${method} ${op.path}: ${status} is not a documented answer (${Object.keys(op.answers).join(", ")})`;
  // A file (CSV) or a stream is not JSON: its shape is not checked here.
  if (typeof answer === "string" || typeof body === "string") return null;
  const parsed = (answer as z.ZodType).safeParse(body);
  if (parsed.success) return null;
  return `${method} ${op.path} ${status}: the body does not match: ${parsed.error.issues
    .map((i) => `${i.path.join(".")}: ${i.message}`)
    .join("; ")}`;
}
