import type { TFunction } from "i18next";
import { permissionLabel } from "./permission-labels";
import { PERMISSION_KEYS, type PermissionKey } from "./permissions";

// What a role gives, in words, wherever a role is chosen (invite, create, a person's page): the
// staff pass found the role checkboxes said nothing of what they give (decision 044).

export type RolePermissions = { permissions: readonly string[] | "all" };

export function roleCan(t: TFunction, role: RolePermissions): string {
  if (role.permissions === "all") return t("access:can.all");
  const held = PERMISSION_KEYS.filter((k) => (role.permissions as readonly string[]).includes(k));
  if (held.length === 0) return t("access:can.nothing");
  return t("access:can.some", {
    permissions: held.map((k) => permissionLabel(t, k as PermissionKey)).join(", "),
  });
}

/** What an admin wrote the role is for, then what it gives: the hint under a role's checkbox. */
export function roleHint(t: TFunction, role: RolePermissions & { description?: string }): string {
  const can = roleCan(t, role);
  return role.description ? `${role.description} ${can}` : can;
}

/** The role's permissions as roleCan reads them. */
export function permissionsOf(role: {
  all: boolean;
  permissions: ReadonlySet<string>;
}): readonly string[] | "all" {
  return role.all ? "all" : [...role.permissions];
}
