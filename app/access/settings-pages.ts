import { type AccessSubject, can } from "./check";
import type { PermissionKey } from "./permissions";

// Settings' pages; the layout's menu, the index's redirect and the links in mail all read this list.

const ACCOUNT_SECTIONS = ["profile", "security", "api-tokens"] as const;
const WORKSPACE_SECTIONS = ["invite", "system", "email-templates", "webhooks", "sso", "directory"] as const;
export type SettingsSection = (typeof ACCOUNT_SECTIONS)[number] | (typeof WORKSPACE_SECTIONS)[number];

type Holder = AccessSubject;

const needs = (user: Holder, ...permissions: PermissionKey[]) => permissions.every((p) => can(user, p));

const WORKSPACE_RULE: Record<(typeof WORKSPACE_SECTIONS)[number], (user: Holder) => boolean> = {
  invite: (u) => needs(u, "user.write"),
  system: (u) => needs(u, "settings.manage"),
  "email-templates": (u) => needs(u, "settings.manage"),
  webhooks: (u) => needs(u, "settings.manage"),
  sso: (u) => u.isSuperAdmin,
  // A directory creates and disables accounts.
  directory: (u) => needs(u, "settings.manage", "user.write", "user.update"),
};

export function settingsMenu(user: Holder) {
  return {
    account: [...ACCOUNT_SECTIONS],
    workspace: WORKSPACE_SECTIONS.filter((section) => WORKSPACE_RULE[section](user)),
  };
}

export const settingsPath = (section: SettingsSection) => `/dashboard/settings/${section}`;

/** Bookmarks and old mail from before Settings became pages land on their section. */
const OLD_TABS: Record<string, { section: SettingsSection; anchor?: string }> = {
  profile: { section: "profile" },
  security: { section: "security" },
  "two-factor": { section: "security", anchor: "two-factor" },
  "api-tokens": { section: "api-tokens" },
  invite: { section: "invite" },
  system: { section: "system" },
  webhooks: { section: "webhooks" },
};

/** An own key only (`#constructor` is none). */
export function oldTabPath(hash: string): string | undefined {
  const key = hash.replace(/^#/, "");
  if (!Object.hasOwn(OLD_TABS, key)) return undefined;
  const { section, anchor } = OLD_TABS[key]!;
  return settingsPath(section) + (anchor ? `#${anchor}` : "");
}

/** A link followed inside the app loses its fragment at the redirect, so stored links are rewritten. */
export function currentSettingsLink(link: string): string {
  const old = /^\/dashboard\/settings(#[\w-]+)$/.exec(link);
  return (old && oldTabPath(old[1]!)) || link;
}
