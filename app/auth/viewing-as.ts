// The forms only an account's own person may send, refused while a super admin views as them
// ("View as", docs/decisions/021-impersonation.md): account security, and what would act in the
// person's name beyond a page view. One list per page (by route pattern), read by both sides: the
// access gate refuses these before any action runs (accessGateMiddleware in guard.server.ts; the
// actions' own refuseWhileImpersonating stays behind it), and the page shows their forms locked,
// with the reason, before anyone types (app/components/viewing-as-lock.tsx).
export const OWN_ACCOUNT_INTENTS = {
  "/dashboard/settings/profile": ["language", "email"],
  "/dashboard/settings/security": [
    "password",
    "revoke-session",
    "revoke-others",
    "forget-device",
    "sign-in-alerts",
    "two-factor-start",
    "two-factor-confirm",
    "two-factor-disable",
    "two-factor-recovery-codes",
    "passkey-options",
    "passkey-add",
    "passkey-rename",
    "passkey-remove",
  ],
  "/dashboard/settings/api-tokens": ["create-api-token", "revoke-api-token"],
  // Which roles must use two-factor: the super admin's own decision, never one made as someone else.
  "/dashboard/settings/system": ["two-factor-roles"],
  // The import task runs as the person, so its audit rows would lose the super admin's name.
  "/dashboard/users/import": ["import"],
  // Another "View as" and a two-factor reset. On the viewed person's own record every form is
  // refused (the route's own rule, before its table), and the page locks them all.
  "/dashboard/users/:id": ["view-as", "reset-two-factor"],
} as const satisfies Record<string, readonly string[]>;

export type OwnAccountPage = keyof typeof OWN_ACCOUNT_INTENTS;

export function isOwnAccountPage(pattern: string): pattern is OwnAccountPage {
  return Object.hasOwn(OWN_ACCOUNT_INTENTS, pattern);
}

/** Whether `intent` on `page` is the real person's alone. */
export function refusedWhileViewingAs(page: OwnAccountPage, intent: string): boolean {
  return (OWN_ACCOUNT_INTENTS[page] as readonly string[]).includes(intent);
}
