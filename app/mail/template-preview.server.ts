import { composeTexts, durationText, type EmailType, PLACEHOLDERS } from "../../emails/email-texts";
import { renderEmail } from "../../emails/render-email";
import { TOKEN_LIFETIME_MS } from "../config";
import { baseUrl } from "../env.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import {
  checkChange,
  savedTemplate,
  type TemplateChange,
  type TemplateEditor,
  templateAddress,
} from "./email-templates.server";
import { sendOrFail } from "./senders.server";

// What an editor sees before and after saving: the template rendered by the real renderer with
// sample values, and "send a test to me", which sends the saved words as a real mail would.

const LIFETIME: Partial<Record<EmailType, number>> = {
  verification: TOKEN_LIFETIME_MS["verify-email"],
  "reset-password": TOKEN_LIFETIME_MS["reset-password"],
  invite: TOKEN_LIFETIME_MS.invite,
};

/** The values a real mail of the type would have, the editor standing in for the recipient. */
function sampleValues(type: EmailType, language: string, editor: { name: string }): Record<string, string> {
  const values: Record<string, string> = {};
  if (PLACEHOLDERS[type].includes("inviterName")) values.inviterName = editor.name;
  const lifetime = LIFETIME[type];
  if (lifetime) values.expiresIn = durationText(lifetime, language);
  return values;
}

const sampleLink = () => `${baseUrl()}/dashboard`;

export type Preview = { subject: string; html: string; text: string };

/** The saved words with `change` over them (checked as a save would: 400 on a wrong field), rendered. */
export async function previewTemplate(
  editor: TemplateEditor & { name: string },
  type: string,
  language: string,
  change: TemplateChange = {},
): Promise<Preview> {
  const address = templateAddress(editor, type, language, "read");
  const saved = await savedTemplate(address.type, address.language);
  const custom = { ...saved?.custom, ...checkChange(address.type, change) };
  const appName = await getSystemConfig("APP_NAME");
  const values = sampleValues(address.type, address.language, editor);
  const userName = address.type === "invite" ? undefined : editor.name;
  const { subject } = composeTexts(address.type, address.language, custom, { ...values, appName, userName });
  const { html, text } = await renderEmail({
    type: address.type,
    language: address.language,
    actionUrl: sampleLink(),
    userName,
    appName,
    template: custom,
    values,
  });
  return { subject, html, text };
}

/** The saved words, to the editor's own address only (nobody else's inbox is a place to test). */
export async function sendTemplateTest(
  editor: TemplateEditor & { name: string },
  type: string,
  language: string,
) {
  const address = templateAddress(editor, type, language);
  return sendOrFail("mail.sendFailed.templateTest", {
    to: editor.email,
    type: address.type,
    language: address.language,
    actionUrl: sampleLink(),
    userName: address.type === "invite" ? undefined : editor.name,
    values: sampleValues(address.type, address.language, editor),
  });
}
