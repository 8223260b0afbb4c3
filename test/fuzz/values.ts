import fc from "fast-check";
import { PASSWORD } from "../helpers";
import { HOSTILE_MEMBERS } from "../support/hostile-keys";

// Hostile values for the fuzz test (test/fuzz.test.ts): what a form field, a JSON member or a URL
// part may hold when the sender is careless, curious or malicious. Every "kind" below mixes values
// that pass validation (so the domain code behind it runs) with ones that must be refused.

const NASTY = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "%00",
  "\r\n",
  "x\r\nSet-Cookie: a=b",
  "\t\v\f",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "../../etc/passwd",
  "..%2F..%2F",
  "' OR '1'='1",
  "'; DROP TABLE user; --",
  '" OR 1=1 --',
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  "{{7*7}}${7*7}",
  "%",
  "_",
  "%_%",
  "\\",
  "\\x00",
  "NaN",
  "-1",
  "0",
  "1.5",
  "1e309",
  "-1e309",
  "Infinity",
  "9007199254740993",
  "99999999999999999999999999",
  "9999-99-99",
  "2026-02-30",
  "0000-00-00",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "[object Object]",
  "\u202e\u2066",
  "\ufeff",
  "\ud83d\ude00",
  "\u00df\u0130",
  "javascript:alert(1)",
  "//evil.example",
  "https://evil.example/x",
  "/\\evil.example",
  "a@b",
  "@",
  "root@example.test",
  " ROOT@Example.TEST ",
  "a@b.c\u0000",
  "x".repeat(255),
  "\u00e9".repeat(1025),
];

const LONG = [256, 1025, 5_000, 60_000, 70_000];

/** Any string a form field could carry: the list above, random code points, or very long runs. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG).map((n) => "a".repeat(n)) },
);

/** A value of `valid` most of the time (so deeper code runs), else anything hostile. */
export function either<T>(valid: fc.Arbitrary<T>, weight = 2): fc.Arbitrary<T | string> {
  return fc.oneof({ weight, arbitrary: valid }, { weight: 3, arbitrary: text });
}

export const names = either(fc.constantFrom("Alice", "Bob Tables", "Zoë", "X"));
export const emails = either(
  fc.oneof(fc.emailAddress(), fc.constantFrom("root@example.test", "new-person@example.test")),
);
export const passwords = either(fc.constantFrom(PASSWORD, "a much newer passphrase", "short"));
export const numbers = either(
  fc.oneof(
    fc.integer().map(String),
    fc.double().map(String),
    fc.constantFrom("1", "2", "10", "25", "100", "-0", "0x10", "1_000"),
  ),
);
export const dates = either(fc.date({ noInvalidDate: false }).map((d) => String(d.toJSON()).slice(0, 10)));
export const uuids = fc.uuid().map(String);

/** An id: one that exists (from the pool), a well-formed one that does not, or junk. */
export function ids(pool: readonly string[]) {
  return fc.oneof(
    { weight: 3, arbitrary: pool.length ? fc.constantFrom(...pool) : uuids },
    { weight: 1, arbitrary: uuids },
    { weight: 2, arbitrary: text },
  );
}

export function oneOf(values: readonly string[]) {
  return either(fc.constantFrom(...values), 3);
}

/** A URL path segment: ids, encoded junk, and raw sequences a router must survive. */
export function segment(pool: readonly string[]) {
  return fc.oneof(
    { weight: 4, arbitrary: ids(pool).map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("%", "%zz", "%E0%A4%A", "..", "%2e%2e", "%2F", "a%00b", "%C0%AF", "~"),
    },
  );
}

/** Any JSON value, including deep and wide ones. */
export const json: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: text },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(text, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(40, 300).map((n) => nested(n)) },
  { weight: 1, arbitrary: fc.constantFrom(...[1_000, 20_000]).map((n) => Array(n).fill(0)) },
  { weight: 1, arbitrary: fc.constant({ __proto__: { isSuperAdmin: true }, constructor: { prototype: 1 } }) },
  // Keys that walk into a prototype, at every depth (as parsed JSON holds them: own keys), and
  // numbers past what a column or a 32-bit client holds (issue 34).
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_MEMBERS).map((m): unknown => JSON.parse(m)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 64, 2 ** 31, Number.MAX_SAFE_INTEGER + 2, 5e-324),
  },
);

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A JSON member: valid most of the time, else any JSON value at all. */
export function member<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: json });
}

/**
 * A list's keyset cursor (db/keyset.ts) as a tamperer writes one: base64url JSON naming a real
 * order, with hostile values in every member (a time that is no time, NUL, huge numbers).
 */
export const cursors = either(
  fc
    .record({
      k: fc.constantFrom("created_at.desc", "name.asc", "last_login_at.asc", "email_verified.desc", "x"),
      v: fc.oneof(
        text,
        fc.integer(),
        fc.double(),
        fc.constant(null),
        fc.constant("2026-01-01T00:00:00.000Z"),
      ),
      id: fc.oneof(text, uuids),
      n: fc.oneof(fc.integer(), fc.double(), fc.constant(1)),
    })
    .map((cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url")),
);

/** A WebAuthn answer as a form field (JSON text): credential-shaped with hostile fields, or any JSON. */
export const webauthnAnswers = either(
  fc.oneof(
    fc
      .record({
        id: text,
        rawId: text,
        type: fc.constantFrom("public-key", "x"),
        clientExtensionResults: json,
        response: fc.record({
          clientDataJSON: fc.oneof(
            text,
            fc.base64String().map((b) => b.replace(/=/g, "")),
          ),
          attestationObject: text,
          authenticatorData: text,
          signature: text,
          transports: fc.array(text, { maxLength: 3 }),
        }),
      })
      .map((v) => JSON.stringify(v)),
    json.map((v) => JSON.stringify(v) ?? ""),
  ),
);
