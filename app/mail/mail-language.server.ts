import type { AuditOrigin } from "../audit/audit.server";
import { resolveLanguage } from "../i18n/i18n.server";

/**
 * The language of an email (decision 024): the recipient's own setting when they are a known user
 * with one; else the language of the browser whose request caused the mail (a registration from a
 * German browser is answered in German); else English. An invitation goes to someone nobody knows
 * yet, so the caller passes the inviting admin's setting: the admin's language is the best guess.
 */
export function mailLanguage(origin: AuditOrigin, setting: string | null | undefined): Promise<string> {
  return resolveLanguage(origin.request, setting);
}
