// Keys and paths a client chose (JSON members, SCIM PATCH paths, query names) are checked here
// before they reach a merge, a patch library or `obj[key] = …`: one of them naming `__proto__`,
// `constructor` or `prototype` would reach Object.prototype through any walker that follows it
// (issue 34: a SCIM PATCH path ended the process). Parsed JSON is also bounded in depth, walked
// without recursion, so no later recursive walker (zod, structuredClone, JSON.stringify) overflows.

/** A name segment as path walkers split them: on ".", ":", "[", "]", quotes, spaces and the like. */
const HOSTILE_SEGMENT = /(?:^|[^A-Za-z0-9_$])(?:__proto__|constructor|prototype)(?=$|[^A-Za-z0-9_$])/i;

/**
 * True when `key`, or any segment of it read as a dotted, URN-prefixed or bracketed path
 * (`name.__proto__.x`, `urn:…:User:constructor`, `emails[type eq "work"].__proto__`), names an
 * object's prototype machinery. No attribute, field or header of this product is named so.
 */
export function isHostileKey(key: string): boolean {
  return HOSTILE_SEGMENT.test(key);
}

/** Deeper than any document this product reads (a SCIM resource is 4 levels; a task payload a few). */
const MAX_JSON_DEPTH = 32;

export type JsonProblem = "tooDeep" | "hostileKey";

/** What is wrong with a parsed JSON value from a client, or null: walked iteratively, depth-bounded. */
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

/** JSON text from a client, parsed and vetted: the one way request bodies become objects. */
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

/** What an /api route says when parseClientJson refuses (English: the API's messages are). */
export const CLIENT_JSON_REFUSAL: Record<JsonProblem, string> = {
  tooDeep: "The body is nested too deeply.",
  hostileKey: "The body names a key no endpoint takes (__proto__, constructor, prototype).",
};
