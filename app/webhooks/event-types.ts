// No server imports here: the endpoint form offers exactly these (decision 032).
export const WEBHOOK_EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.disabled",
  "user.enabled",
  "user.deleted",
  "user.roles_changed",
  "user.role_granted",
  "user.role_revoked",
  "role.created",
  "role.updated",
  "role.deleted",
  "access_request.created",
  "access_request.approved",
  "access_request.denied",
  "access_request.expired",
  "access_review.created",
  "access_review.decided",
  "access_review.closed",
  "team.created",
  "team.updated",
  "team.deleted",
  "team.member_added",
  "team.member_removed",
  "session.signed_in",
  "session.sign_in_failed",
  "task.completed",
  "task.failed",
  "settings.updated",
  "email_template.updated",
  "audit.entry",
  "audit.checkpoint",
  "audit.integrity_failed",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const SUPER_ADMIN = "super_admin";

export const ALL_EVENTS = "*";

export const TEST_EVENT = "webhook.test";

/** An endpoint is a copy of what it receives, so nobody subscribes to more than they may read in the app. */
const EVENT_PERMISSION: Record<string, string> = {
  "user.": "user.read",
  "role.": "roles.manage",
  "access_request.": "roles.manage",
  "access_review.": "roles.manage",
  "team.": "team.read",
  "session.": "log.read",
  "task.": "log.read",
  "settings.": "settings.manage",
  "email_template.": "settings.manage",
  "audit.checkpoint": "log.read",
  "audit.integrity_failed": "log.read",
  "audit.entry": SUPER_ADMIN,
  [ALL_EVENTS]: SUPER_ADMIN,
};

export function permissionForEvent(event: string): string {
  return EVENT_PERMISSION[event] ?? EVENT_PERMISSION[`${event.split(".")[0]}.`] ?? SUPER_ADMIN;
}

export function mayReceive(
  who: { isSuperAdmin: boolean; permissions: ReadonlySet<string> },
  event: string,
): boolean {
  const needed = permissionForEvent(event);
  return who.isSuperAdmin || (needed !== SUPER_ADMIN && who.permissions.has(needed));
}
