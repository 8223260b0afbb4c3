// Shared by the list query parser and the users page's controls.
export const PAGE_SIZES = [25, 50, 100] as const;
export const USER_SORTS = [
  "name",
  "email",
  "created_at",
  "last_login_at",
  "status",
  "email_verified",
] as const;

/**
 * "Joined recently" windows of the list (`?created=7d`). 7d is the last 7 UTC days, today
 * included: the overview's "new this week" (docs/decisions/010-maintained-aggregates.md), so the
 * number there and the list it links to agree.
 */
export const USER_CREATED_WINDOWS = ["7d"] as const;
