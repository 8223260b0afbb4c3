import type { TFunction } from "i18next";
import { SYSTEM_ROLES } from "./roles";

// Roles live in the database with the English label the seed wrote (roles.ts). A system role still
// carrying that label is said in the page's language; a role an admin created, or a system role an
// admin relabelled, shows the row's own label: their words are not ours to replace.

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

export function roleLabel(t: TFunction, role: { name: string; label: string }): string {
  const say = SEEDED[role.name];
  return say && seededLabel.get(role.name) === role.label ? say(t) : role.label;
}
