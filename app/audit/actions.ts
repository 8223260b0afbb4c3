// Every audit action name, declared once, with what a staff member reads for it. The log page
// filters on these; `ACTION_LABELS` is typed over the list, so a new action without a label does
// not compile, and app/audit/action-labels.test.ts finds any action written that is not listed.
export const ACTION_LABELS = {
  "auth.login.succeeded": "Signed in",
  "auth.login.failed": "Failed sign-in",
  "auth.login.rate_limited": "Sign-in blocked (too many attempts)",
  "auth.logout": "Signed out",
  "access.sync": "Synced permissions",
  // accounts
  "auth.register": "Registered",
  "auth.register.existing": "Registration with an existing address",
  "auth.email.verified": "Verified email address",
  "auth.verification.resent": "Resent verification email",
  "auth.password.reset_requested": "Requested a password reset",
  "auth.password.reset": "Reset password",
  "auth.invite.accepted": "Accepted an invitation",
  "user.invite": "Invited someone",
  "account.profile.update": "Changed own name",
  "account.language.update": "Changed own language",
  "account.email.change_requested": "Requested an email change",
  "account.email.changed": "Changed email address",
  "account.password.change": "Changed own password",
  "account.sessions.revoke": "Signed out own sessions",
  "account.reauth.failed": "Wrong password or code when confirming",
  "account.reauth.rate_limited": "Confirmation blocked (too many attempts)",
  "impersonation.start": "Started viewing as someone",
  "impersonation.stop": "Stopped viewing as someone",
  "impersonation.end": "Viewing as someone ended",
  // two-factor authentication (app/auth/two-factor*.server.ts)
  "account.two_factor.enrol_started": "Started setting up two-factor authentication",
  "account.two_factor.confirm_failed": "Wrong code when setting up two-factor authentication",
  "account.two_factor.confirm_refused":
    "Setting up two-factor authentication refused: started in another session",
  "account.two_factor.enable": "Turned on two-factor authentication",
  "account.two_factor.disable": "Turned off two-factor authentication",
  "account.two_factor.recovery_codes": "Generated new recovery codes",
  "auth.two_factor.succeeded": "Passed the two-factor step",
  "auth.two_factor.failed": "Wrong two-factor code at sign-in",
  "auth.two_factor.rate_limited": "Two-factor step blocked (too many attempts)",
  "user.two_factor.reset": "Reset an account's two-factor authentication",
  "settings.two_factor_roles": "Changed the roles that require two-factor authentication",
  "account.passkey.add": "Added a passkey",
  "account.passkey.rename": "Renamed a passkey",
  "account.passkey.remove": "Removed a passkey",
  // settings and mail
  "settings.update": "Changed settings",
  "settings.reset": "Reset settings",
  "settings.update.refused": "Settings change refused (mail routing is for super admins)",
  "mail.test": "Sent a test email",
  "mail.failed": "Email failed",
  "task.create": "Started a task",
  "task.download": "Downloaded a task file",
  "user.create": "Created a user",
  "user.update": "Changed a user (name, email, roles)",
  "user.disable": "Disabled an account",
  "user.enable": "Enabled an account",
  "user.delete": "Deleted an account",
  "user.password_reset": "Sent a password reset",
  "session.revoke": "Signed out a user's sessions",
  "role.create": "Created a role",
  "role.update": "Changed a role",
  "role.permissions.update": "Changed a role's permissions",
  "role.delete": "Deleted a role",
  "menu.update": "Changed the menu",
  "team.create": "Created a team",
  "team.update": "Changed a team",
  "team.delete": "Deleted a team",
  "team.member.add": "Added a team member",
  "team.member.update": "Changed a team member's role",
  "team.member.remove": "Removed a team member",
  "broadcast.send": "Sent a broadcast",
  "user.invite.cancel": "Cancelled an invitation",
  "audit.retention": "Purged old audit entries",
  "audit.export": "Exported the audit log",
  "audit.verify": "Verified the audit log's integrity",
  // single sign-on (docs/decisions/020-oidc-single-sign-on.md)
  "sso.provider.create": "Added a sign-in provider",
  "sso.provider.update": "Changed a sign-in provider",
  "sso.provider.delete": "Removed a sign-in provider",
  "sso.account.created": "Account created through single sign-on",
  "sso.account.linked": "Account linked to a sign-in provider",
  "sso.link.required": "Single sign-on link waiting for the account holder's proof",
  "sso.link.failed": "Single sign-on link refused (wrong proof)",
  "account.api_token.create": "Created an API token",
  "account.api_token.revoke": "Revoked own API token",
  "user.api_token.revoke": "Revoked a user's API token",
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof ACTION_LABELS;

export const AUDIT_ACTIONS = Object.keys(ACTION_LABELS) as AuditAction[];

/** What the log shows for an action; a name from an older release that is no longer listed shows as written. */
export function actionLabel(action: string): string {
  return (ACTION_LABELS as Record<string, string>)[action] ?? action;
}
