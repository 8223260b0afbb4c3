import type { TFunction } from "i18next";
import { type SettingsSection, settingsPath } from "../../access/settings-pages";
import { keywordList } from "./palette-match";

// What the palette offers besides the sidebar's pages, each with the words people search it by
// (shell:palette.keywords.*): the pages of Settings, Tasks and Import, and the acts of the shell.

/** The sidebar's seeded pages by address; a page an admin added is found by its title alone. */
const PAGE_KEYWORDS: Record<string, string> = {
  "/dashboard": "dashboard",
  "/dashboard/users": "users",
  "/dashboard/teams": "teams",
  "/dashboard/access": "access",
  "/dashboard/logs": "logs",
  "/dashboard/settings": "settings",
  "/dashboard/broadcast": "broadcast",
};

export function pageKeywords(t: TFunction, url: string): string[] {
  const key = Object.hasOwn(PAGE_KEYWORDS, url) ? PAGE_KEYWORDS[url] : undefined;
  return key ? keywordList(t(`shell:palette.keywords.${key}`)) : [];
}

const SECTION_KEY = {
  profile: "profile",
  security: "security",
  "api-tokens": "apiTokens",
  invite: "invite",
  system: "system",
  "email-templates": "emailTemplates",
  webhooks: "webhooks",
  sso: "sso",
  directory: "directory",
} as const satisfies Record<SettingsSection, string>;

export type PaletteLink = { id: string; label: string; keywords: string[]; url: string };

/** Settings' pages the person may open (app/access/settings-pages.ts decides which). */
export function settingsEntries(t: TFunction, sections: readonly SettingsSection[]): PaletteLink[] {
  return sections.map((section) => ({
    id: `settings:${section}`,
    label: t(`settings:menu.${SECTION_KEY[section]}`),
    keywords: keywordList(t(`shell:palette.keywords.${SECTION_KEY[section]}`)),
    url: settingsPath(section),
  }));
}

/** Pages outside the sidebar: everyone's own tasks; importing for those who may create people. */
export function morePages(t: TFunction, may: (permission: string) => boolean): PaletteLink[] {
  const pages: PaletteLink[] = [
    {
      id: "tasks",
      label: t("tasks:history.title"),
      keywords: keywordList(t("shell:palette.keywords.tasks")),
      url: "/dashboard/tasks",
    },
  ];
  if (may("user.write"))
    pages.push({
      id: "import",
      label: t("shell:palette.importUsers"),
      keywords: keywordList(t("shell:palette.keywords.import")),
      url: "/dashboard/users/import",
    });
  return pages;
}
