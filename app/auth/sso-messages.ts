// What the login page says when single sign-on was refused (`/login?sso=<code>`). The page shows
// only these fixed texts, never anything from the query string itself.
export const SSO_MESSAGES = {
  failed: "Single sign-on did not complete. Please try again.",
  expired: "That sign-in attempt expired or was already used. Please start again.",
  unavailable: "That sign-in provider is not available right now. Please try again later.",
  unverified: "Your identity provider did not confirm your email address, so you can not sign in with it.",
  domain: "Your email address is not allowed to sign in with this provider.",
  disabled: "This account is disabled. Contact an administrator.",
  outbound_refused:
    "That sign-in provider's address is not allowed: this server connects to public addresses only. Contact an administrator.",
  conflict: "This account is linked to another identity at that provider. Contact an administrator.",
} as const;

export type SsoRefusal = keyof typeof SSO_MESSAGES;

export function ssoMessage(code: string | null): string | null {
  return code && Object.hasOwn(SSO_MESSAGES, code) ? SSO_MESSAGES[code as SsoRefusal] : null;
}

/** Said after a right password for an address whose domain signs in through a provider only. */
export function singleSignOnRequiredMessage(providerName: string) {
  return `Use single sign-on for this address: choose "Sign in with ${providerName}".`;
}
