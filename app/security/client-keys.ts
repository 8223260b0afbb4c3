// Keys a client chose are checked before any merge or patch library, as `__proto__` would reach
// Object.prototype; parsed JSON is depth-bounded so no recursive walker overflows.

const HOSTILE_SEGMENT = /(?:^|[^A-Za-z0-9_$])(?:__proto__|constructor|prototype)(?=$|[^A-Za-z0-9_$])/i;

/** No attribute, field or header of this product is named so. */
export function isHostileKey(key: string): boolean {
  return HOSTILE_SEGMENT.test(key);
}

const MAX_JSON_DEPTH = 32;

export type JsonProblem = "tooDeep" | "hostileKey";

export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonProblem | null {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth >= maxDepth) return "tooDeep";
    if (Array.isArray(item)) {
      for (const child of item) stack.push([child, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(item)) {
      if (isHostileKey(key)) return "hostileKey";
      stack.push([child, depth + 1]);
    }
  }
  return null;
}

export type ClientJson = { ok: true; value: unknown } | { ok: false; problem: JsonProblem | "syntax" };

/** The one way request bodies become objects. */
export function parseClientJson(text: string): ClientJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "syntax" };
  }
  const problem = jsonProblem(value);
  return problem ? { ok: false, problem } : { ok: true, value };
}

export const CLIENT_JSON_REFUSAL: Record<JsonProblem, string> = {
  tooDeep: "The body is nested too deeply.",
  hostileKey: "The body names a key no endpoint takes (__proto__, constructor, prototype).",
};
