import { E2E_PORT } from "./env";

// The fake Postmark server e2e/server.ts starts beside the app; specs read what it received.
export const FAKE_POSTMARK_PORT = Number(E2E_PORT) + 1;
export const FAKE_POSTMARK_URL = `http://127.0.0.1:${FAKE_POSTMARK_PORT}`;
export const E2E_MAIL_KEY = "e2e-fake-postmark-server-token";

type Received = {
  To: string;
  Subject: string;
  Tag?: string;
  TextBody?: string;
  HtmlBody?: string;
  token: string;
};

export async function receivedMail(to: string): Promise<Received[]> {
  const res = await fetch(`${FAKE_POSTMARK_URL}/__messages`);
  const { messages } = (await res.json()) as { messages: Received[] };
  return messages.filter((m) => m.To.toLowerCase() === to.toLowerCase());
}

/** Waits for the newest email of a type to `to` and returns the link it carries to `path`. */
export async function linkFromMail(to: string, tag: string, path: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const mail = (await receivedMail(to)).filter((m) => m.Tag === tag).at(-1);
    const link = mail?.TextBody?.match(new RegExp(`https?://\\S*${path.replace(/[/?]/g, "\\$&")}\\S*`))?.[0];
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${tag} email with a ${path} link reached ${to}`);
}
