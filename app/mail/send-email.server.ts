import { composeTexts, type EmailType, emailLanguage } from "../../emails/email-texts";
import { renderEmail } from "../../emails/render-email";
import { db } from "../db.server";
import { env } from "../env.server";
import { mailSent } from "../metrics/metrics.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import { savedTemplate } from "./email-templates.server";
import { recordMail } from "./mail-log.server";
import { type Delivery, deliver, MailProviderError, type MailRouting } from "./transport.server";

export type EmailRequest = {
  to: string;
  type: EmailType;
  actionUrl: string;
  subject?: string;
  userName?: string;
  message?: string;
  list?: { intro: string; items: string[] };
  /** Placeholder values beyond appName and userName (emails/email-texts.ts, PLACEHOLDERS). */
  values?: Record<string, string>;
  /** Left out, the recipient's own setting is looked up by address; English when there is none. */
  language?: string;
  via?: MailRouting;
};

async function languageOf(address: string): Promise<string | undefined> {
  const row = await db().selectFrom("user").select("locale").where("email", "=", address).executeTakeFirst();
  return row?.locale ?? undefined;
}

/** Records the attempt whatever the outcome. */
export async function sendEmail(request: EmailRequest): Promise<Delivery> {
  const [appName, from] = await Promise.all([
    getSystemConfig("APP_NAME"),
    request.via ? request.via.from : getSystemConfig("EMAIL_FROM"),
  ]);
  const language = emailLanguage(request.language ?? (await languageOf(request.to)));
  // The organisation's words for this type in the recipient's language, else the product's.
  const saved = await savedTemplate(request.type, language);
  const values = { ...request.values, appName, userName: request.userName };
  const subject = request.subject ?? composeTexts(request.type, language, saved?.custom, values).subject;
  const { html, text } = await renderEmail({
    language,
    type: request.type,
    actionUrl: request.actionUrl,
    userName: request.userName,
    message: request.message,
    list: request.list,
    appName,
    template: saved?.custom,
    values: request.values,
  });
  const base = { to: request.to, type: request.type, subject, templateVersion: saved?.version ?? null };
  try {
    const delivery = await deliver(
      {
        from,
        to: request.to,
        subject,
        html,
        text,
        tag: request.type,
        actionUrl: request.actionUrl,
      },
      request.via,
    );
    mailSent(true);
    await recordMail({
      ...base,
      status: delivery.via === "outbox" ? "outbox" : "sent",
      providerMessageId: delivery.messageId,
      // Never kept in production: it is a live token.
      outboxLink: env().NODE_ENV === "production" ? null : request.actionUrl,
    });
    return delivery;
  } catch (error) {
    mailSent(false);
    const message = error instanceof MailProviderError ? error.providerMessage : (error as Error).message;
    await recordMail({ ...base, status: "failed", error: message });
    throw error;
  }
}
