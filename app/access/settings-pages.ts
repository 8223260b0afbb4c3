import { type AccessSubject, can } from "./check";
import type { PermissionKey } from "./permissions";

// Settings' pages, one route each under /dashboard/settings/ (app/routes.ts), in two groups as
// GitHub splits them: the person's own account, and the workspace, which only those who may change
// it see. The layout's menu, the index's redirect and the links in mail all read this list.

const ACCOUNT_SECTIONS = ["profile", "security", "api-tokens"] as const;
const WORKSPACE_SECTIONS = ["invite", "system", "webhooks", "sso", "directory"] as const;
export type SettingsSection = (typeof ACCOUNT_SECTIONS)[number] | (typeof WORKSPACE_SECTIONS)[number];

type Holder = AccessSubject;

const needs = (user: Holder, ...permissions: PermissionKey[]) => permissions.every((p) => can(user, p));

/** Who sees a workspace page: the permission its loader and action demand. */
const WORKSPACE_RULE: Record<(typeof WORKSPACE_SECTIONS)[number], (user: Holder) => boolean> = {
  invite: (u) => needs(u, "user.write"),
  system: (u) => needs(u, "settings.manage"),
  webhooks: (u) => needs(u, "settings.manage"),
  // Single sign-on providers: super admins only (routes/dashboard.settings.sso.tsx).
  sso: (u) => u.isSuperAdmin,
  // A directory creates and disables accounts (routes/dashboard.settings.directory.tsx).
  directory: (u) => needs(u, "settings.manage", "user.write", "user.update"),
};

export function settingsMenu(user: Holder) {
  return {
    account: [...ACCOUNT_SECTIONS],
    workspace: WORKSPACE_SECTIONS.filter((section) => WORKSPACE_RULE[section](user)),
  };
}

export const settingsPath = (section: SettingsSection) => `/dashboard/settings/${section}`;

/**
 * Where an address of the single Settings page (`/dashboard/settings#tab`) lives now: bookmarks,
 * old mail and links written before Settings became pages land on their section.
 */
export const OLD_TABS: Record<string, { section: SettingsSection; anchor?: string }> = {
  profile: { section: "profile" },
  security: { section: "security" },
  "two-factor": { section: "security", anchor: "two-factor" },
  "api-tokens": { section: "api-tokens" },
  invite: { section: "invite" },
  system: { section: "system" },
  webhooks: { section: "webhooks" },
};
