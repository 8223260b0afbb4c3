import { describe, expect, it } from "vitest";
import { constraintOf, parseSubmission } from "../http/submission";
import { englishTranslator } from "../i18n/english.server";
import { systemSettingsSchema } from "./settings-form";

// The system section's one parser, as the action runs it (handleIntents: parseSubmission).
function parseSettingsForm(form: URLSearchParams) {
  const out = parseSubmission(form, systemSettingsSchema, englishTranslator());
  return out.status === "success"
    ? { ok: true as const, ...out.value }
    : { ok: false as const, fieldErrors: Object.fromEntries(Object.entries(out.error ?? {})) };
}

describe("the system section's schema", () => {
  it("keeps a secret when its field is blank and resets a plain value when blank", () => {
    const out = parseSettingsForm(
      new URLSearchParams({ MAIL_API_KEY: "", EMAIL_FROM: "", APP_NAME: "Acme" }),
    );
    expect(out).toEqual({
      ok: true,
      changes: [
        { key: "EMAIL_FROM", kind: "reset" },
        { key: "APP_NAME", kind: "set", value: "Acme" },
      ],
      // No re-authentication sent: needed only for a super admin's setting (docs/rules.md).
      reauth: { password: undefined, code: undefined },
    });
  });

  it("returns field errors for bad values", () => {
    const out = parseSettingsForm(
      new URLSearchParams({ MAIL_API_KEY: "short", EMAIL_FROM: "not an address", APP_NAME: "x".repeat(61) }),
    );
    expect(out.ok).toBe(false);
    if (!out.ok)
      expect(Object.keys(out.fieldErrors).sort()).toEqual(["APP_NAME", "EMAIL_FROM", "MAIL_API_KEY"]);
  });

  it("accepts a display-name sender and rejects unknown reset keys", () => {
    expect(parseSettingsForm(new URLSearchParams({ EMAIL_FROM: "Acme <no-reply@acme.test>" })).ok).toBe(true);
    expect(parseSettingsForm(new URLSearchParams({ reset: "DATABASE_URL" })).ok).toBe(false);
  });

  // Found by the fuzz test: a key with a line break was stored, and from then on every email failed
  // ("invalid header value": the key travels as an HTTP header), so every action that mails was a 502.
  it.each([
    ["MAIL_API_KEY", "abcd1234\r\nX-Other: 1"],
    ["MAIL_API_KEY", "abcd 1234 efgh"],
    ["MAIL_API_KEY", "abcd1234\u0000"],
    ["APP_NAME", "Acme\r\nBcc: x@example.test"],
    ["APP_NAME", "Acme\u0000"],
  ])("refuses %s with a control character or space where none belongs (%j)", (key, value) => {
    const out = parseSettingsForm(new URLSearchParams({ [key]: value }));
    expect(out.ok).toBe(false);
    if (!out.ok) expect(Object.keys(out.fieldErrors)).toEqual([key]);
  });

  it("still accepts a real key and a name with spaces", () => {
    const out = parseSettingsForm(
      new URLSearchParams({ MAIL_API_KEY: "a1b2c3d4-e5f6-4711-8899-aabbccddeeff", APP_NAME: "Acme Admin" }),
    );
    expect(out.ok).toBe(true);
  });
});

describe("the system section's form in the browser", () => {
  it("takes its constraints from the same schema (its input side: conform cannot read a transform)", () => {
    const constraint = constraintOf(systemSettingsSchema);
    expect(Object.keys(constraint)).toEqual(
      expect.arrayContaining(["MAIL_API_KEY", "APP_NAME", "reauthCode"]),
    );
    expect(constraint.reauthCode?.maxLength).toBe(20);
    expect(constraint.APP_NAME?.required).toBeFalsy();
  });
});
