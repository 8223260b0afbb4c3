import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { decryptSecret, encryptSecret } from "../security/secret-box.server";

// An endpoint's signing secret: `whsec_` and 24 random bytes in base64 (Standard Webhooks' form),
// stored encrypted (app/security/secret-box.server.ts) and shown once. After a rotation the old
// one signs too, for 24 hours, so a receiver can switch without losing a message.

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function newSecret(): { plain: string; stored: string } {
  const plain = `whsec_${randomBytes(24).toString("base64")}`;
  return { plain, stored: encryptSecret(plain) };
}

type Signing = { secret: string; previous_secret: string | null; previous_secret_until: string | null };

/** `webhook-signature`: one `v1,<sig>` per secret in force, space-separated (the spec allows several). */
export function signatureHeader(endpoint: Signing, id: string, at: Date, body: string): string {
  const secrets = [endpoint.secret];
  if (
    endpoint.previous_secret &&
    endpoint.previous_secret_until &&
    Date.parse(endpoint.previous_secret_until) > at.getTime()
  )
    secrets.push(endpoint.previous_secret);
  return secrets.map((s) => new Webhook(decryptSecret(s)).sign(id, at, body)).join(" ");
}
