import { randomUUID } from "node:crypto";
import pino from "pino";
import { ServerClient } from "postmark";
import { env } from "../env.server";
import { getSystemConfig } from "../system-settings/system-config.server";

export type OutgoingMail = {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  tag: string;
  /** Only used by the development outbox, which prints it so the flow can continue. */
  actionUrl: string;
};

export type Delivery = { via: "postmark" | "outbox"; messageId: string };

/**
 * The provider key and sender mail goes out with; normally read from Settings per send. A notice
 * about a change of these goes out the way mail went before the change (app/settings/super-admin-settings.server.ts).
 */
export type MailRouting = { apiKey: string | undefined; from: string };

/** The provider refused or could not be reached; `providerMessage` is its own wording. */
export class MailProviderError extends Error {
  constructor(
    readonly providerMessage: string,
    readonly code: number | null,
  ) {
    super(providerMessage);
    this.name = "MailProviderError";
  }
}

let logger: pino.Logger | undefined;
function log() {
  logger ??= pino({ level: env().LOG_LEVEL, base: { component: "mail" } });
  return logger;
}

/** Postmark's client takes scheme and host separately; MAIL_API_URL is one URL. */
export function postmarkOptions(apiUrl: string | undefined) {
  if (!apiUrl) return { timeout: 30 };
  const url = new URL(apiUrl);
  const path = url.pathname.replace(/\/$/, "");
  return { useHttps: url.protocol === "https:", requestHost: `${url.host}${path}`, timeout: 30 };
}

/**
 * Sends through Postmark with the key from Settings (or the environment), read per send so a key
 * saved in Settings is used by the very next email. With no key anywhere: the development outbox.
 */
export async function deliver(mail: OutgoingMail, routing?: MailRouting): Promise<Delivery> {
  const apiKey = routing ? routing.apiKey : await getSystemConfig("MAIL_API_KEY");
  if (!apiKey) {
    const messageId = `outbox-${randomUUID()}`;
    // The link is what lets a laptop finish a flow; in production it would hand a token to whoever
    // reads the logs, so there only the fact of the email is logged.
    const actionUrl = env().NODE_ENV === "production" ? undefined : mail.actionUrl;
    log().info(
      { to: mail.to, subject: mail.subject, actionUrl, messageId },
      "development outbox: no MAIL_API_KEY, email not sent",
    );
    return { via: "outbox", messageId };
  }
  const client = new ServerClient(apiKey, postmarkOptions(env().MAIL_API_URL));
  try {
    const res = await client.sendEmail({
      From: mail.from,
      To: mail.to,
      Subject: mail.subject,
      HtmlBody: mail.html,
      TextBody: mail.text,
      Tag: mail.tag,
      MessageStream: "outbound",
    });
    if (res.ErrorCode && res.ErrorCode !== 0) throw new MailProviderError(res.Message, res.ErrorCode);
    return { via: "postmark", messageId: res.MessageID };
  } catch (error) {
    if (error instanceof MailProviderError) throw error;
    const e = error as { message?: string; code?: number };
    throw new MailProviderError(e.message ?? String(error), typeof e.code === "number" ? e.code : null);
  }
}
