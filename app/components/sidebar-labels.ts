import type { TFunction } from "i18next";
import { type LabelTranslations, ownTranslation } from "../access/label-translations";
import { SEED_MENU_ITEMS } from "../access/menu";

// Sidebar rows live in the database with the English title the seed wrote (app/access/menu.ts).
// In a language L a row is said by, in this order: the title an admin wrote for L
// (app/access/label-translations.ts); for a seeded row still carrying its seeded title, our
// translation, found by its url; else the row's own title, as written: an admin's words are not
// ours to replace.

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

export function menuLabel(
  t: TFunction,
  item: { url: string; title: string; translations?: LabelTranslations },
): string {
  const own = ownTranslation(t, item.translations);
  if (own) return own;
  const label = SEEDED_LABELS[item.url];
  return label && seededTitle.get(item.url) === item.title ? label(t) : item.title;
}
