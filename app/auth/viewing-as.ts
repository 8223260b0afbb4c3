// The forms only an account's own person may send, refused while a super admin views as them
// (decision 021): the gate refuses them and the page shows them locked, both from this list.
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
  "/dashboard/settings/system": ["two-factor-roles"],
  // The import task runs as the person, so its audit rows would lose the super admin's name.
  "/dashboard/users/import": ["import"],
  // On the viewed person's own record every form is refused by the route itself.
  "/dashboard/users/:id": ["view-as", "reset-two-factor"],
} as const satisfies Record<string, readonly string[]>;

export type OwnAccountPage = keyof typeof OWN_ACCOUNT_INTENTS;

export function isOwnAccountPage(pattern: string): pattern is OwnAccountPage {
  return Object.hasOwn(OWN_ACCOUNT_INTENTS, pattern);
}

export function refusedWhileViewingAs(page: OwnAccountPage, intent: string): boolean {
  return (OWN_ACCOUNT_INTENTS[page] as readonly string[]).includes(intent);
}
