import { isDeepStrictEqual } from "node:util";

/**
 * Matches a JSON column by meaning, not spelling: PostgreSQL's jsonb reformats the text
 * (`{"rows": 3}`), SQLite keeps it as written.
 */
export function jsonText(expected: unknown) {
  return {
    asymmetricMatch: (actual: unknown) =>
      typeof actual === "string" && isDeepStrictEqual(JSON.parse(actual), expected),
    toString: () => `jsonText(${JSON.stringify(expected)})`,
    toAsymmetricMatcher: () => `jsonText(${JSON.stringify(expected)})`,
  };
}
