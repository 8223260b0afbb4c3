import type { z } from "zod";
import type { Operation } from "./operation";
import { OPERATIONS } from "./operations.server";

// For the API tests: an answer the description does not allow is a failure, so the description
// cannot drift from the code. Returns why it is not allowed, or null.

function operationsAt(url: string): Operation[] {
  const path = new URL(url, "http://localhost").pathname;
  return OPERATIONS.filter((op) => new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(path));
}

export function answerProblem(method: string, url: string, status: number, body: unknown): string | null {
  const described = operationsAt(url);
  const op = described.find((o) => o.method === method.toLowerCase());
  // A method a described path does not take: 405 is HTTP's own answer, not an operation.
  if (!op && status === 405 && described.length > 0) return null;
  // SCIM answers 404 in its own shape under /scim/v2 for a resource type it lacks.
  if (
    described.length === 0 &&
    status === 404 &&
    new URL(url, "http://localhost").pathname.startsWith("/scim/v2/")
  )
    return null;
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
