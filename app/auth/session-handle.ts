import { createHash } from "node:crypto";

/** A session's public name: a hash, never the id the cookie carries (what pages, the API and streams show). */
export function sessionHandle(id: string): string {
  return createHash("sha256").update(id).digest("base64url").slice(0, 16);
}
