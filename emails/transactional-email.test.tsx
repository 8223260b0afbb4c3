import { describe, expect, it } from "vitest";
import { defaultTemplate, EMAIL_TYPES, type EmailType, emailFooter, emailTexts } from "./email-texts";
import { renderEmail } from "./render-email";
import { fillTemplate } from "./template-text";

const URL_ = "https://app.example.test/act?token=abc123&x=1";

const values = { inviterName: "Grace Hopper" };
/** The default message as sent: the invitation's names its inviter. */
const defaultMessage = (type: EmailType, language?: string) =>
  fillTemplate(defaultTemplate(type, language).message, values);

/** Finds each part after the previous one; -1 marks the first part missing or out of order. */
function inOrder(haystack: string, parts: string[]): number {
  // Starting from the heading also skips the HTML's hidden preview line, which repeats the message.
  let from = 0;
  for (const [i, part] of parts.entries()) {
    const at = haystack.indexOf(part, from);
    if (at < 0) return i;
    from = at + part.length;
  }
  return -1;
}

describe("TransactionalEmail", () => {
  it.each(EMAIL_TYPES)(
    "%s: heading, message, button, footer in order; no greeting without a name",
    async (type) => {
      const texts = emailTexts(type);
      const { html, text } = await renderEmail({ type, actionUrl: URL_, appName: "Acme Admin", values });
      const heading = `Acme Admin: ${texts.label}`;
      for (const part of [html, text]) {
        expect(inOrder(part, [heading, defaultMessage(type), texts.button, emailFooter()])).toBe(-1);
        expect(part).not.toContain("Hello");
      }
      expect(html).toMatch(/<h1[^>]*>Acme Admin: /);
      expect(html).toContain(`href="${URL_.replace("&", "&amp;")}"`);
      expect(text).toContain(URL_);
    },
  );

  it.each(EMAIL_TYPES)(
    "%s: greeting between heading and message; message overrides the default",
    async (type) => {
      const texts = emailTexts(type);
      const { html, text } = await renderEmail({
        type,
        actionUrl: URL_,
        userName: "Ada Lovelace",
        message: "A custom line for this email.",
        appName: "Acme Admin",
      });
      for (const part of [html, text]) {
        const missing = inOrder(part, [
          `Acme Admin: ${texts.label}`,
          "Ada Lovelace",
          "A custom line for this email.",
          texts.button,
          emailFooter(),
        ]);
        expect(missing).toBe(-1);
        expect(part).not.toContain(texts.message);
      }
      expect(text).toMatch(/Hello Ada Lovelace,/);
    },
  );

  it("escapes what users typed instead of rendering it as markup", async () => {
    const { html } = await renderEmail({
      type: "notification",
      actionUrl: URL_,
      userName: "<script>x</script>",
      message: "<b>bold</b>",
    });
    expect(html).not.toContain("<script>x</script>");
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt;");
  });

  it("every type has a subject, label, message and button text", () => {
    expect(EMAIL_TYPES).toEqual([
      "verification",
      "reset-password",
      "password-changed",
      "invite",
      "two-factor-reset",
      "settings-changed",
      "sign-in-alert",
      "sessions-ended",
      "notification",
    ]);
    for (const type of EMAIL_TYPES) {
      for (const value of Object.values(emailTexts(type))) expect(value.length).toBeGreaterThan(3);
    }
  });

  it.each(EMAIL_TYPES)("%s: in German for a German recipient, every part", async (type) => {
    const texts = emailTexts(type, "de");
    expect(texts).not.toEqual(emailTexts(type, "en"));
    const { html, text } = await renderEmail({
      type,
      actionUrl: URL_,
      userName: "Ada Lovelace",
      appName: "Acme Admin",
      language: "de",
      values,
    });
    for (const part of [html, text])
      expect(
        inOrder(part, [
          `Acme Admin: ${texts.label}`,
          "Hallo Ada Lovelace,",
          defaultMessage(type, "de"),
          texts.button,
          emailFooter("de"),
        ]),
      ).toBe(-1);
    expect(html).toMatch(/<html[^>]*lang="de"/);
    expect(text).not.toContain("Hello");
  });

  it("falls back to English for a language we do not have", async () => {
    const { html, text } = await renderEmail({ type: "verification", actionUrl: URL_, language: "fr" });
    expect(html).toMatch(/<html[^>]*lang="en"/);
    expect(text).toContain(emailTexts("verification").message);
  });
});
