import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { inviteUser } from "../auth/invitations.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { loader as listLoader } from "../routes/api.email-templates";
import { action as templateAction } from "../routes/api.email-templates.$type.$language";
import { action as previewAction } from "../routes/api.email-templates.$type.$language.preview";
import { emailTemplatesData } from "../settings/email-templates-page.server";
import { applySettingsChanges } from "../settings/update-settings.server";
import { resetSystemConfig, setSystemConfig } from "../system-settings/system-config.server";
import { recentMail } from "./mail-log.server";
import { sendPasswordResetEmail, sendVerificationEmail } from "./senders.server";

const postmark = withFakePostmark();
beforeAll(setupDatabase);

function call(method: string, path: string, cookie: string, body?: unknown) {
  const [, , , type = "", language = ""] = path.split("/");
  const req = request(
    `/api/email-templates/${type}/${language}${path.endsWith("/preview") ? "/preview" : ""}`,
    {
      method,
      cookie,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    },
  );
  const params = { type, language };
  return run(() =>
    path.endsWith("/preview") ? previewAction(args(req, params)) : templateAction(args(req, params)),
  );
}

const put = (type: string, language: string, cookie: string, body: unknown) =>
  call("PUT", `/api/email-templates/${type}/${language}`, cookie, body);

const stored = () => db().selectFrom("email_template").selectAll().execute();
const versions = () => db().selectFrom("email_template_version").selectAll().orderBy("version").execute();
const audits = () =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("action", "like", "email_template.%")
    .orderBy("seq")
    .execute();

async function clean() {
  await db().deleteFrom("email_template").execute();
  await db().deleteFrom("email_template_version").execute();
}

const actor = (u: { id: string; email: string; name: string }, isSuperAdmin: boolean) =>
  ({
    ...u,
    isSuperAdmin,
    permissions: new Set(["user.write", "settings.manage"]),
    roles: [],
    grants: [],
    locale: null,
  }) as unknown as SessionUser;

describe("email templates", () => {
  it("a German invitation subject reaches a German invitee, with the product's name; an English one keeps the default", async () => {
    await clean();
    const root = await signedIn(["super_admin"]);
    const out = await put("invite", "de", root.cookie, { subject: "Willkommen bei {{appName}}" });
    expect(out).toMatchObject({ status: 200, body: { type: "invite", language: "de", customized: true } });
    expect((out.body as { subject: string }).subject).toBe("Willkommen bei {{appName}}");

    const origin = args(request("/dashboard/settings/invite"));
    const inviter = actor(root, true);
    await inviteUser(inviter, { email: "neu@example.test", roleIds: [], language: "de" }, origin);
    await inviteUser(inviter, { email: "new@example.test", roleIds: [], language: "en" }, origin);
    const de = postmark.fake.messages.find((m) => m.To === "neu@example.test")!;
    const en = postmark.fake.messages.find((m) => m.To === "new@example.test")!;
    expect(de.Subject).toBe("Willkommen bei Admin Dashboard");
    expect(en.Subject).toBe("You have been invited");
    // The mail log says which words each mail used.
    const log = await db().selectFrom("mail_log").select(["to_address", "template_version"]).execute();
    expect(log.find((r) => r.to_address === "neu@example.test")?.template_version).toBe(1);
    expect(log.find((r) => r.to_address === "new@example.test")?.template_version).toBeNull();
    // Settings → System's mail log shows it.
    const recent = await recentMail(10, { email: root.email, isSuperAdmin: true });
    expect(recent.find((m) => m.to === "neu@example.test")?.templateVersion).toBe(1);
    // The page's picker marks the invitation customised in German only.
    const page = await emailTemplatesData(inviter, new URL("http://localhost/?type=invite"), "en");
    expect(page.types.find((t) => t.type === "invite")?.customized).toEqual(["de"]);
    expect(page.types.filter((t) => t.customized.length > 0)).toHaveLength(1);
  });

  it.each([
    ["{{unknown}} placeholder", "Hello {{unknown}}", "{{unknown}}"],
    ["URL", "Read https://example.org first", "https://example.org"],
    ["email address", "Write to help@example.org", "help@example.org"],
    ["host name", "Go to example.org", "example.org"],
    ["unbalanced braces", "Hello {{userName", "braces"],
    ["a right-to-left override", "Hello \u202egnp.exe", "plain text"],
    ["a control character", "Hello\u0007", "plain text"],
    // What mail clients link but linkify-it alone does not (the outside review's bypasses).
    ["a URL after a bar", "Help |https://evil.com today", "https://evil.com"],
    ["a URL after an equals sign", "Help =https://evil.com", "https://evil.com"],
    ["a host name before a bar", "Help: evil.com| today", "evil.com"],
    ["a host name before a tilde", "Visit evil.com~ now", "evil.com"],
    ["a defanged scheme", "Go to hxxp://evil.com", "hxxp://evil.com"],
    ["a soft hyphen inside a host name", "go to evil.c\u00adom", "plain text"],
    ["full-width letters", "go to evil.\uff23\uff2f\uff2d", "evil.COM"],
    ["a host name joined to a placeholder", "sign in at {{appName}}-login.com", "login.com"],
    ["an address joined to a placeholder", "Write to support{{appName}}@gmail.com", "@gmail.com"],
  ])("PUT with %s in the message: 400 on message, nothing saved or audited", async (_, message, said) => {
    await clean();
    const root = await signedIn(["super_admin"]);
    const before = (await audits()).length;
    const out = await put("notification", "en", root.cookie, { subject: "Fine", message });
    expect(out.status).toBe(400);
    expect(out.body).toMatchObject({ error: "invalid_request", field: "message" });
    expect(String((out.body as { message: string }).message)).toContain(said);
    expect(await stored()).toEqual([]);
    expect(await versions()).toEqual([]);
    expect(await audits()).toHaveLength(before);
  });

  it("400 on a subject over 150 characters, a field over 1,000, an unknown field; 404 on an unknown language or type", async () => {
    await clean();
    const root = await signedIn(["super_admin"]);
    expect(await put("notification", "en", root.cookie, { subject: "x".repeat(151) })).toMatchObject({
      status: 400,
      body: { field: "subject" },
    });
    expect(await put("notification", "en", root.cookie, { footer: "x".repeat(1001) })).toMatchObject({
      status: 400,
      body: { field: "footer" },
    });
    expect(await put("notification", "en", root.cookie, { subject: "A", colour: "red" })).toMatchObject({
      status: 400,
    });
    expect(await put("notification", "fr", root.cookie, { subject: "Salut" })).toMatchObject({ status: 404 });
    expect(await put("nonsense", "en", root.cookie, { subject: "Hi" })).toMatchObject({ status: 404 });
    // Hostile keys never reach a merge.
    expect(
      await put("notification", "en", root.cookie, '{"__proto__":{"polluted":1},"subject":"x"}'),
    ).toMatchObject({
      status: 400,
    });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(await stored()).toEqual([]);
  });

  it("an admin gets 403 on the reset-password template and 200 on notification; a manager 403 on both", async () => {
    await clean();
    const admin = await signedIn(["admin"]);
    expect(await put("reset-password", "en", admin.cookie, { subject: "Reset" })).toMatchObject({
      status: 403,
      body: { error: "forbidden" },
    });
    for (const type of ["verification", "invite", "sign-in-alert", "password-changed", "two-factor-reset"])
      expect((await put(type, "en", admin.cookie, { subject: "Hi" })).status, type).toBe(403);
    expect(await call("DELETE", "/api/email-templates/reset-password/en", admin.cookie)).toMatchObject({
      status: 403,
    });
    // Reading a guarded template is open: its preview answers.
    expect(
      (await call("POST", "/api/email-templates/reset-password/en/preview", admin.cookie, {})).status,
    ).toBe(200);
    expect(await put("notification", "en", admin.cookie, { subject: "News from {{appName}}" })).toMatchObject(
      {
        status: 200,
      },
    );
    const manager = await signedIn(["manager"]);
    expect((await put("notification", "en", manager.cookie, { subject: "Mine" })).status).toBe(403);
    expect((await stored()).map((r) => [r.type, r.subject])).toEqual([
      ["notification", "News from {{appName}}"],
    ]);
  });

  it("the preview renders the custom words in HTML and plain text, with unsaved fields over saved ones", async () => {
    await clean();
    const root = await signedIn(["super_admin"]);
    await put("reset-password", "en", root.cookie, { message: "Ask the IT desk on floor 3 if unsure." });
    const out = await call("POST", "/api/email-templates/reset-password/en/preview", root.cookie, {
      button: "Pick a password",
    });
    expect(out.status).toBe(200);
    const body = out.body as { subject: string; html: string; text: string };
    expect(body.subject).toBe("Reset your password");
    for (const part of [body.html, body.text]) {
      expect(part).toContain("Ask the IT desk on floor 3 if unsure.");
      expect(part).toContain("Pick a password");
    }
    // Previewing saves nothing.
    expect((await stored())[0]?.button).toBeNull();
    expect(
      (
        await call("POST", "/api/email-templates/reset-password/en/preview", root.cookie, {
          message: "see evil.com",
        })
      ).status,
    ).toBe(400);
  });

  it("GET lists every type in every language; DELETE restores the default, kept as a version; each change audited with before and after", async () => {
    await clean();
    const root = await signedIn(["super_admin"]);
    await put("verification", "en", root.cookie, { subject: "Confirm your address for {{appName}}" });
    await put("verification", "en", root.cookie, { message: "One click and you are in, {{userName}}." });
    const list = await run(() => listLoader(args(request("/api/email-templates", { cookie: root.cookie }))));
    const rows = list.body as { type: string; language: string; subject: string; customized: boolean }[];
    expect(rows).toHaveLength(9 * 2);
    expect(rows.find((r) => r.type === "verification" && r.language === "en")).toMatchObject({
      subject: "Confirm your address for {{appName}}",
      customized: true,
    });
    expect(rows.find((r) => r.type === "verification" && r.language === "de")?.customized).toBe(false);

    await sendVerificationEmail({
      to: "ada@example.test",
      name: "Ada",
      verificationUrl: "http://x.test/v?token=1",
    });
    expect(postmark.fake.messages.at(-1)).toMatchObject({
      Subject: "Confirm your address for Admin Dashboard",
    });
    expect(postmark.fake.messages.at(-1)?.TextBody).toContain("One click and you are in, Ada.");

    expect(await call("DELETE", "/api/email-templates/verification/en", root.cookie)).toMatchObject({
      status: 200,
      body: { customized: false, subject: "Verify your email address" },
    });
    await sendVerificationEmail({
      to: "ada@example.test",
      name: "Ada",
      verificationUrl: "http://x.test/v?token=1",
    });
    // The specification's subject, unless someone customised it.
    expect(postmark.fake.messages.at(-1)?.Subject).toBe("Verify your email address");
    expect((await versions()).map((v) => [v.version, v.change])).toEqual([
      [1, "update"],
      [2, "update"],
      [3, "reset"],
    ]);
    const [first, , reset] = (await audits()).filter((a) => a.target_id === "verification/en");
    expect(JSON.parse(first!.details!)).toMatchObject({
      type: "verification",
      before: { subject: null },
      after: { subject: "Confirm your address for {{appName}}" },
    });
    expect(reset!.action).toBe("email_template.reset");
    expect(JSON.parse(reset!.details!)).toMatchObject({
      before: { message: "One click and you are in, {{userName}}." },
    });
  });

  it("two saves at once both land, one version each, no field lost (PostgreSQL's unique index refused one before)", async () => {
    await clean();
    const root = await signedIn(["super_admin"]);
    const fields = ["subject", "heading", "message", "button", "footer"] as const;
    const outs = await Promise.all(
      fields.map((field) => put("notification", "en", root.cookie, { [field]: `Words for ${field}` })),
    );
    expect(outs.map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await versions()).map((v) => v.version)).toEqual([1, 2, 3, 4, 5]);
    const [row] = await stored();
    for (const field of fields) expect(row![field]).toBe(`Words for ${field}`);
  });

  it("a placeholder's value that reads as a link is defanged, and an application name that is a host name is refused", async () => {
    await clean();
    await sendPasswordResetEmail({
      to: "x@example.test",
      name: "Visit evil.com",
      resetUrl: "http://x.test/r?token=1",
    });
    const mail = postmark.fake.messages.at(-1)!;
    expect(mail.TextBody).toContain("Visit evil[.]com");
    expect(mail.TextBody).not.toContain("evil.com");
    const root = await createUser({ roles: ["super_admin"] });
    await expect(
      applySettingsChanges(
        actor(root, true),
        { changes: [{ key: "APP_NAME", kind: "set", value: "acme-login.com" }] },
        args(request("/dashboard/settings/system")),
      ),
    ).rejects.toMatchObject({ field: "APP_NAME" });
    for (const value of ["=https://evil.com", "evil.com|", "Acme|evil-login.com|", "hxxp://evil.com"])
      await expect(
        applySettingsChanges(
          actor(root, true),
          { changes: [{ key: "APP_NAME", kind: "set", value }] },
          args(request("/dashboard/settings/system")),
        ),
        value,
      ).rejects.toMatchObject({ field: "APP_NAME" });
    // A name assembled into a link by the words around it breaks too.
    await db().deleteFrom("email_template").execute();
    await db()
      .insertInto("email_template")
      .values({
        type: "reset-password",
        language: "en",
        subject: null,
        heading: null,
        message: null,
        button: null,
        footer: "Help: password-help.{{appName}}",
        version: 1,
        updated_at: new Date().toISOString(),
        updated_by: null,
      })
      .execute();
    // Stored straight: Settings would refuse nothing here ("com" is no link alone).
    await setSystemConfig("APP_NAME", "com", null);
    try {
      await sendPasswordResetEmail({
        to: "y@example.test",
        name: "Bob |https://evil.com",
        resetUrl: "http://x.test/r?token=1",
      });
    } finally {
      await resetSystemConfig("APP_NAME");
    }
    const second = postmark.fake.messages.at(-1)!;
    expect(second.TextBody).not.toMatch(/https:\/\/evil|password-help\.com/);
    expect(second.TextBody).toContain("Bob |https[:]//evil[.]com");
    expect(second.TextBody).toContain("password-help[.]com");
  });
});
