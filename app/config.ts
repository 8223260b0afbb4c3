import type { UserTokenTable } from "../db/schema";

// The fixed default application name; a value saved in Settings wins (getSystemConfig, docs/rules.md).
export const APP_NAME = "Admin Dashboard";

/** How long each kind of single-use token works (app/auth/tokens.server.ts); mail says it too. */
export const TOKEN_LIFETIME_MS: Record<UserTokenTable["kind"], number> = {
  "verify-email": 24 * 60 * 60 * 1000,
  "email-change": 24 * 60 * 60 * 1000,
  "reset-password": 60 * 60 * 1000,
  "set-password": 7 * 24 * 60 * 60 * 1000,
  "not-me": 7 * 24 * 60 * 60 * 1000,
  invite: 7 * 24 * 60 * 60 * 1000,
  "two-factor-pending": 5 * 60 * 1000,
  // Not a link: the session that started a TOTP enrolment (two-factor.server.ts), for as long as it waits.
  "two-factor-enrol": 15 * 60 * 1000,
  // Not a link: the Undo of a toast (app/users/undo.server.ts). The toast shows it for 10 s, longer
  // while hovered or focused; two minutes leaves room for that, and no more.
  undo: 2 * 60 * 1000,
};
