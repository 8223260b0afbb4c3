import fc from "fast-check";
import { signWebhook } from "../../app/tasks/webhook-signature.server";
import { text } from "./values";

// A fuzz request as plain data (so fast-check can print and shrink it), and how it becomes bytes.

export type Encoding =
  | "urlencoded"
  | "multipart"
  | "json"
  | "json-scalar"
  | "text"
  | "none"
  | "bad-multipart"
  | "raw"
  | "odd-type"
  | "invalid-json"
  | "deep-json"
  | "wide-json";

export type Signature = "valid" | "forged" | "garbage" | "missing" | "stale" | "other-id";

export type Sent = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  encoding?: Encoding;
  fields?: [string, unknown][];
  /** Only for the signed webhook. */
  signature?: Signature;
};

/**
 * Field name -> arbitrary value; each field is sent once, left out, or repeated. A name ending in
 * "[]" is a list (checkboxes): none, a few, or far more than any form offers.
 */
export type FieldSpec = Record<string, fc.Arbitrary<unknown>>;

const EXTRA_NAMES = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "__proto__.polluted",
    "__proto__[polluted]",
    "constructor[prototype][polluted]",
    "intent",
    "id",
    "roles",
    "toString",
    "_data",
  ),
  text,
);

function repeated(name: string, value: fc.Arbitrary<unknown>) {
  return fc
    .oneof(
      { weight: 6, arbitrary: fc.array(value, { maxLength: 4 }) },
      { weight: 1, arbitrary: value.map((v) => Array<unknown>(150).fill(v)) },
    )
    .map((vs) => vs.map((v): [string, unknown] => [name, v]));
}

export function fields(spec: FieldSpec, intent?: fc.Arbitrary<unknown>): fc.Arbitrary<[string, unknown][]> {
  const all = intent ? { intent, ...spec } : spec;
  const each = Object.entries(all).map(([name, value]) =>
    name.endsWith("[]")
      ? repeated(name.slice(0, -2), value)
      : fc.oneof(
          { weight: 8, arbitrary: value.map((v): [string, unknown][] => [[name, v]]) },
          { weight: 1, arbitrary: fc.constant([] as [string, unknown][]) },
          {
            weight: 1,
            arbitrary: fc
              .array(value, { minLength: 2, maxLength: 3 })
              .map((vs) => vs.map((v): [string, unknown] => [name, v])),
          },
        ),
  );
  const extra = fc.array(fc.tuple(EXTRA_NAMES, text), { maxLength: 2 });
  return fc.tuple(fc.tuple(...each), extra).map(([parts, more]) => [...parts.flat(), ...more]);
}

export const FORM_ENCODINGS = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Encoding>("urlencoded") },
  { weight: 3, arbitrary: fc.constant<Encoding>("multipart") },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Encoding>("json", "text", "none", "bad-multipart", "raw", "odd-type"),
  },
);

export const JSON_ENCODINGS = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Encoding>("json") },
  {
    weight: 5,
    arbitrary: fc.constantFrom<Encoding>(
      "json-scalar",
      "invalid-json",
      "deep-json",
      "wide-json",
      "urlencoded",
      "multipart",
      "none",
      "text",
    ),
  },
);

export const SIGNATURES = fc.constantFrom<Signature>(
  "valid",
  "valid",
  "forged",
  "garbage",
  "missing",
  "stale",
  "other-id",
);

const str = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

export function encode(sent: Sent): { headers: Record<string, string>; body?: BodyInit } {
  const entries = sent.fields ?? [];
  const urlencoded = () => new URLSearchParams(entries.map(([k, v]) => [k, str(v)])).toString();
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  const asJson = { "Content-Type": "application/json" };
  switch (sent.encoding) {
    case undefined:
    case "none":
      return { headers: {} };
    case "urlencoded":
      return { headers: form, body: urlencoded() };
    case "multipart": {
      const data = new FormData();
      for (const [k, v] of entries) data.append(k, str(v));
      return { headers: {}, body: data };
    }
    case "json":
      return { headers: asJson, body: JSON.stringify(Object.fromEntries(entries)) };
    case "json-scalar":
      return { headers: asJson, body: JSON.stringify(entries.map(([, v]) => v)) };
    case "text":
      return { headers: { "Content-Type": "text/plain" }, body: urlencoded() };
    case "bad-multipart":
      return {
        headers: { "Content-Type": "multipart/form-data; boundary=zz" },
        body: `--zz\r\n${urlencoded()}`,
      };
    case "raw":
      // Field text as it came, unencoded: stray %, & and = for the form parser.
      return { headers: form, body: entries.map(([k, v]) => `${k}=${str(v)}`).join("&") };
    case "odd-type":
      return {
        headers: { "Content-Type": "APPLICATION/X-WWW-FORM-URLENCODED; charset=utf-16; boundary=" },
        body: urlencoded(),
      };
    case "invalid-json":
      return { headers: asJson, body: `{"type": ${urlencoded().slice(0, 200)}` };
    case "deep-json": {
      // Deeper than JSON.stringify or a recursive validator can walk, in every member sent.
      const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
      const members = entries.map(
        ([k, v]) => `${JSON.stringify(k)}:${typeof v === "string" ? JSON.stringify(v) : deep}`,
      );
      return {
        headers: asJson,
        body: `{${[...members, `"result":${deep}`, `"payload":${deep}`].join(",")}}`,
      };
    }
    case "wide-json":
      return {
        headers: asJson,
        body: JSON.stringify({ ...Object.fromEntries(entries), many: Array(15_000).fill(1) }),
      };
  }
}

/** The webhook's headers for a body, signed well or badly. */
export function webhookHeaders(signature: Signature, body: string, taskId: unknown): Record<string, string> {
  // A header can not carry every string; a task id that no header can hold is sent as another.
  const id = typeof taskId === "string" && /^[\x21-\x7e]{1,200}$/.test(taskId) ? taskId : "msg_fuzz";
  switch (signature) {
    case "valid":
      return signWebhook(id, body);
    case "other-id":
      return { ...signWebhook(id, body), "webhook-id": `${id}x` };
    case "stale":
      return signWebhook(id, body, new Date(Date.now() - 3_600_000));
    case "forged":
      return { ...signWebhook(id, `${body} `), "webhook-id": id };
    case "garbage":
      return { "webhook-id": "../x", "webhook-timestamp": "1e309", "webhook-signature": "v1,%%%" };
    case "missing":
      return {};
  }
}
