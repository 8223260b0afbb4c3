import type { TFunction } from "i18next";
import { type LabelTranslations, ownTranslation } from "./label-translations";
import { SYSTEM_ROLES } from "./roles";

// Roles live in the database with the English label the seed wrote (roles.ts). In a language L a
// role is said by, in this order: the label an admin wrote for L (label-translations.ts); for a
// system role still carrying its seeded label, our translation; else the row's own label, as
// written: an admin's words are not ours to replace.

const SEEDED: Record<string, (t: TFunction) => string> = {
  super_admin: (t) => t("roles:super_admin"),
  admin: (t) => t("roles:admin"),
  manager: (t) => t("roles:manager"),
  user: (t) => t("roles:user"),
  guest: (t) => t("roles:guest"),
};

const seededLabel = new Map(SYSTEM_ROLES.map((r) => [r.name, r.label]));

/** Names of system roles that have a translation (the test checks every system role is among them). */
export const TRANSLATED_ROLE_NAMES = Object.keys(SEEDED);

export function roleLabel(
  t: TFunction,
  role: { name: string; label: string; translations?: LabelTranslations },
): string {
  const own = ownTranslation(t, role.translations);
  if (own) return own;
  const say = SEEDED[role.name];
  return say && seededLabel.get(role.name) === role.label ? say(t) : role.label;
}

/** Every role by id and by name, as `t`'s language says it: for texts that name roles by either. */
export function roleNamesIn(
  t: TFunction,
  roles: Iterable<{ id: string; name: string; label: string; translations?: LabelTranslations }>,
): Map<string, string> {
  const names = new Map<string, string>();
  for (const role of roles) {
    const label = roleLabel(t, role);
    names.set(role.id, label);
    names.set(role.name, label);
  }
  return names;
}
