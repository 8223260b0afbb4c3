// Every audit action name, declared once; the log page filters on these.
export const AUDIT_ACTIONS = [
  "auth.login.succeeded",
  "auth.login.failed",
  "auth.login.rate_limited",
  "auth.logout",
  "access.sync",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
