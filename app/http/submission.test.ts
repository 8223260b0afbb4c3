import { describe, expect, it } from "vitest";
import { z } from "zod";
import { args, form, request, run, setupDatabase } from "../../test/helpers";
import { inviteSchema, registerSchema, resetPasswordSchema } from "../auth/account-schemas";
import { englishTranslator } from "../i18n/english.server";
import { action as registerAction } from "../routes/register";
import { actionError, invalidSubmission, parseSubmission } from "./form.server";
import { constraintOf, type FormFailure, toLastResult } from "./submission";

const en = englishTranslator();

function formData(values: Record<string, string | string[]>) {
  const out = new FormData();
  for (const [name, value] of Object.entries(values))
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  return out;
}

async function answer(response: unknown) {
  const out = await run(() => response);
  return { status: out.status, body: out.body as FormFailure };
}

describe("parseSubmission", () => {
  it("keeps text as typed, so an empty field gets the schema's own message", () => {
    const submission = parseSubmission(
      formData({ name: "", email: "x", password: "short" }),
      registerSchema,
      en,
    );
    expect(submission.status).toBe("error");
    expect(submission.status === "error" && submission.error).toEqual({
      name: ["Enter your name."],
      email: ["Enter a valid email address."],
      password: ["Use at least 10 characters."],
    });
  });

  it("reads one ticked checkbox as a list and none as an empty list", () => {
    const id = "6f1c2b7e-3c1d-4e5f-8a9b-0c1d2e3f4a5b";
    const one = parseSubmission(formData({ email: "a@b.test", roles: id }), inviteSchema, en);
    expect(one.status === "success" && one.value.roles).toEqual([id]);
    const none = parseSubmission(formData({ email: "a@b.test" }), inviteSchema, en);
    expect(none.status === "error" && none.error).toEqual({ roles: ["Choose at least one role."] });
  });
});

describe("invalidSubmission: the 400 of a refused form", () => {
  it("answers 400 with the contract body (errors, formError, intent) and conform's reply", async () => {
    const submission = parseSubmission(
      formData({ token: "t", password: "a fine long passphrase", confirm: "another one entirely" }),
      resetPasswordSchema,
      en,
    );
    const { status, body } = await answer(invalidSubmission(submission, "reset"));
    expect(status).toBe(400);
    expect(body).toMatchObject({
      ok: false,
      intent: "reset",
      errors: { confirm: "The passwords do not match." },
      formError: null,
    });
    expect(body.submission).toMatchObject({
      status: "error",
      error: { confirm: ["The passwords do not match."] },
    });
  });

  it("never sends a password, its confirmation or a token back", async () => {
    const submission = parseSubmission(
      formData({ name: "", email: "kept@example.test", password: "hunter2hunter2" }),
      registerSchema,
      en,
    );
    const { body } = await answer(invalidSubmission(submission));
    expect(JSON.stringify(body)).not.toContain("hunter2hunter2");
    expect(body.submission?.initialValue).toEqual({ email: "kept@example.test" });
  });

  it("flattens a nested error ('roles[0]') to its field, the form's own to 'form'", async () => {
    const schema = z
      .object({ roles: z.array(z.string().uuid("Choose roles from the list.")), a: z.string() })
      .refine(() => false, "Not like this.");
    const submission = parseSubmission(formData({ roles: ["x"], a: "" }), schema, en);
    const { body } = await answer(invalidSubmission(submission));
    expect(body.errors).toEqual({ roles: "Choose roles from the list.", form: "Not like this." });
    const whole = parseSubmission(formData({ roles: [], a: "" }), schema, en);
    expect((await answer(invalidSubmission(whole))).body.errors).toEqual({ form: "Not like this." });
  });

  it("is what POST /register answers for bad input: 400, field errors, no password", async () => {
    await setupDatabase();
    const req = request("/register", {
      method: "POST",
      body: form({ name: "Ada", email: "ada@example.test", password: "short-pw" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    const out = await run(() => registerAction(args(req) as never));
    expect(out.status).toBe(400);
    const body = out.body as FormFailure;
    expect(body.errors).toEqual({ password: "Use at least 10 characters." });
    expect(body.submission?.error).toEqual({ password: ["Use at least 10 characters."] });
    expect(JSON.stringify(body)).not.toContain("short-pw");
  });
});

describe("toLastResult: an answer as the form's state", () => {
  it("uses conform's reply when there is one, and the form's message under ''", async () => {
    const submission = parseSubmission(
      formData({ name: "", email: "a@b.test", password: "" }),
      registerSchema,
      en,
    );
    const { body } = await answer(invalidSubmission(submission));
    const result = toLastResult({ ...body, formError: "Also this." });
    expect(result?.status).toBe("error");
    expect(result?.error?.name).toEqual(["Enter your name."]);
    expect(result?.error?.[""]).toEqual(["Also this."]);
  });

  it("reads actionError's refusals (no reply) and the login's bare formError", async () => {
    const refused = (await answer(actionError(new z.ZodError([]), en))).body;
    expect(toLastResult({ ...refused, errors: { email: "Taken." } })?.error).toEqual({ email: ["Taken."] });
    expect(toLastResult({ formError: "Invalid email or password.", email: "x" })).toEqual({
      status: "error",
      error: { "": ["Invalid email or password."] },
    });
  });

  it("resets the form after a success and ignores answers that are not about a form", () => {
    expect(toLastResult({ ok: true, message: "Saved." })).toEqual({ initialValue: null });
    expect(toLastResult(undefined)).toBeUndefined();
    expect(toLastResult({ rows: [] })).toBeUndefined();
  });
});

describe("constraintOf", () => {
  it("gives the browser the schema's limits, so no page copies them", () => {
    expect(constraintOf(registerSchema)).toMatchObject({
      name: { required: true, minLength: 1, maxLength: 100 },
      email: { required: true, maxLength: 254 },
      password: { required: true, minLength: 10, maxLength: 1024 },
    });
    expect(constraintOf(resetPasswordSchema).password).toMatchObject({ minLength: 10 });
  });
});
