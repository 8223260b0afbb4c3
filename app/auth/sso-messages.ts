import type { Message, MessageKey } from "../i18n/message";

// What the login page says when single sign-on was refused (`/login?sso=<code>`). The page shows
// only these fixed messages, never anything from the query string itself.
export const SSO_MESSAGES = {
  failed: "sso.refused.failed",
  expired: "sso.refused.expired",
  unavailable: "sso.refused.unavailable",
  unverified: "sso.refused.unverified",
  domain: "sso.refused.domain",
  disabled: "auth.disabled",
  outbound_refused: "sso.refused.outboundRefused",
  conflict: "sso.refused.conflict",
} as const satisfies Record<string, MessageKey>;

export type SsoRefusal = keyof typeof SSO_MESSAGES;

export function ssoMessage(code: string | null): MessageKey | null {
  return code && Object.hasOwn(SSO_MESSAGES, code) ? SSO_MESSAGES[code as SsoRefusal] : null;
}

/** Said after a right password for an address whose domain signs in through a provider only. */
export function singleSignOnRequiredMessage(providerName: string): Message {
  return { key: "sso.required", values: { provider: providerName } };
}
