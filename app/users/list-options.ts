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
