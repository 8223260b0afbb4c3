import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { env, sessionSecrets } from "../env.server";

// AES-256-GCM for secret settings. The key is a SHA-256 of SETTINGS_ENCRYPTION_KEY, or of a
// SESSION_SECRET when that is unset. Decryption tries every configured session secret, so rotating
// SESSION_SECRET (new one first, old one kept in the list) does not lose stored secrets.

const VERSION = "v1";

function derive(material: string): Buffer {
  return createHash("sha256").update(`settings-encryption:${material}`).digest();
}

function keys(): Buffer[] {
  const dedicated = env().SETTINGS_ENCRYPTION_KEY;
  return dedicated ? [derive(dedicated)] : sessionSecrets().map(derive);
}

export function encryptSecret(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys()[0]!, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), body.toString("base64url")].join(":");
}

class SecretUnreadableError extends Error {
  constructor() {
    super("A stored secret setting cannot be decrypted with the current encryption key.");
  }
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, body] = stored.split(":");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new SecretUnreadableError();
  for (const key of keys()) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      // wrong key: try the next one
    }
  }
  throw new SecretUnreadableError();
}
