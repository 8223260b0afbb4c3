import type { TFunction } from "i18next";
import { SEED_MENU_ITEMS } from "../access/menu";

// Sidebar rows live in the database with the English title the seed wrote (app/access/menu.ts).
// A seeded row is said in the page's language, found by its url; a row an admin added, or a seeded
// one an admin renamed, shows the row's own title: their words are not ours to replace.

const SEEDED_LABELS: Record<string, (t: TFunction) => string> = {
  "/dashboard": (t) => t("shell:menu.dashboard"),
  "/dashboard/users": (t) => t("shell:menu.users"),
  "/dashboard/teams": (t) => t("shell:menu.teams"),
  "/dashboard/access": (t) => t("shell:menu.access"),
  "/dashboard/logs": (t) => t("shell:menu.logs"),
  "/dashboard/settings": (t) => t("shell:menu.settings"),
  "/dashboard/broadcast": (t) => t("shell:menu.broadcast"),
};

const seededTitle = new Map(SEED_MENU_ITEMS.map((item) => [item.url, item.title]));

/** Urls of seeded rows that have a translation (the test checks every seeded row is among them). */
export const TRANSLATED_MENU_URLS = Object.keys(SEEDED_LABELS);

export function menuLabel(t: TFunction, item: { url: string; title: string }): string {
  const label = SEEDED_LABELS[item.url];
  return label && seededTitle.get(item.url) === item.title ? label(t) : item.title;
}
