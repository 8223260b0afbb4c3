// The events outgoing webhooks carry (docs/decisions/032-outgoing-webhooks.md). Shared by the server
// and the browser (no server imports here): the endpoint form offers exactly these.
export const WEBHOOK_EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.disabled",
  "user.enabled",
  "user.deleted",
  "user.roles_changed",
  "role.created",
  "role.updated",
  "role.deleted",
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
  "audit.entry",
  "audit.checkpoint",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an endpoint subscribes to: some types, or every one ("*"). */
export const ALL_EVENTS = "*";

/** The event "Send test" delivers, whatever the endpoint subscribes to. */
export const TEST_EVENT = "webhook.test";
