import { randomUUID } from "node:crypto";
import pino from "pino";
import { ServerClient } from "postmark";
import { env } from "../env.server";
import { inSpan } from "../http/tracing.server";
import { getSystemConfig } from "../system-settings/system-config.server";

export type OutgoingMail = {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  tag: string;
  /** Only the development outbox prints it, so the flow can continue. */
  actionUrl: string;
};

export type Delivery = { via: "postmark" | "outbox"; messageId: string };

/** A notice about a change of these goes out the way mail went before the change. */
export type MailRouting = { apiKey: string | undefined; from: string };

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

export function postmarkOptions(apiUrl: string | undefined) {
  if (!apiUrl) return { timeout: 30 };
  const url = new URL(apiUrl);
  const path = url.pathname.replace(/\/$/, "");
  return { useHttps: url.protocol === "https:", requestHost: `${url.host}${path}`, timeout: 30 };
}

/** Whether mail reaches anyone: without a key it goes to the development outbox (the dashboard says so). */
export async function mailHasProvider(): Promise<boolean> {
  return Boolean(await getSystemConfig("MAIL_API_KEY"));
}

/** Read per send, so a key saved in Settings is used by the very next email. */
export function deliver(mail: OutgoingMail, routing?: MailRouting): Promise<Delivery> {
  return inSpan("mail.send", { kind: "client" }, () => deliverNow(mail, routing));
}

async function deliverNow(mail: OutgoingMail, routing?: MailRouting): Promise<Delivery> {
  const apiKey = routing ? routing.apiKey : await getSystemConfig("MAIL_API_KEY");
  if (!apiKey) {
    const messageId = `outbox-${randomUUID()}`;
    // In production the link would hand a token to whoever reads the logs.
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
