import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { env, sessionSecrets } from "../env.server";

export const WEBHOOK_PATH = "/api/webhooks/tasks";

/** Derived from SESSION_SECRET when unset, so every process of one installation agrees; production should set its own. */
function webhookSecret(): string {
  const configured = env().TASK_WEBHOOK_SECRET;
  if (configured) return configured;
  const key = createHmac("sha256", sessionSecrets()[0] ?? "")
    .update("task-webhook-secret")
    .digest();
  return `whsec_${key.toString("base64")}`;
}

let cached: { secret: string; webhook: Webhook } | undefined;
function webhook(): Webhook {
  const secret = webhookSecret();
  if (cached?.secret !== secret) cached = { secret, webhook: new Webhook(secret) };
  return cached.webhook;
}

export function signWebhook(id: string, body: string, at = new Date()): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": webhook().sign(id, at, body),
  };
}

/** Before anything parses the body; constant-time, and refused 300 s off. */
export function verifyWebhook(rawBody: string, headers: Headers): string | null {
  const id = headers.get("webhook-id");
  const timestamp = headers.get("webhook-timestamp");
  const signature = headers.get("webhook-signature");
  if (!id || !timestamp || !signature) return null;
  try {
    webhook().verify(
      rawBody,
      { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature },
      { jsonParse: false },
    );
    return id;
  } catch {
    return null;
  }
}
