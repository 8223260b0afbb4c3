import { z } from "zod";

/** Deeper than any task needs, shallow enough for every recursive reader (JSON.stringify, zod, jsonb). */
export const MAX_PAYLOAD_DEPTH = 32;

/**
 * Why a client's payload cannot be stored, or null. Walked with an explicit stack, so a payload
 * nested 30,000 deep is measured rather than overflowing the stack the way JSON.stringify would.
 * NUL is refused on both databases alike: PostgreSQL's jsonb cannot hold "\u0000" at all.
 */
export function payloadProblem(payload: unknown): string | null {
  const stack: [unknown, number][] = [[payload, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return "Text in the payload must not contain NUL characters.";
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_PAYLOAD_DEPTH) return `The payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels.`;
    for (const [key, child] of Object.entries(value)) {
      if (key.includes("\u0000")) return "Keys in the payload must not contain NUL characters.";
      stack.push([child, depth + 1]);
    }
  }
  return null;
}

/** Any JSON value a task may be given, before its type's own schema looks at it. */
export const taskPayloadSchema = z.unknown().superRefine((value, ctx) => {
  const problem = payloadProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
