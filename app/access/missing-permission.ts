import type { TFunction } from "i18next";
import { englishTranslator } from "../i18n/english.server";
import { say } from "../i18n/message";
import { PERMISSIONS, type PermissionKey } from "./permissions";

// Roles and their permissions are edited on the Access Control page, which needs this one.
const GRANTOR: PermissionKey = "roles.manage";

function labelOf(key: string): string {
  return PERMISSIONS.find((p) => p.key === key)?.label ?? key;
}

export type MissingPermission = {
  permission: string | null;
  /** What is missing, in words a staff member can repeat to whoever can help. */
  message: string;
  /** Who can give it. */
  grantedBy: string;
};

/**
 * Explains a refusal: the permission by its label and key, and who can grant it. A page names a
 * missing permission again from its key, in its own language (app/components/no-access.tsx); the
 * super-admin-only refusal is said with `t`, the request's.
 */
export function missingPermission(
  permission: string | null,
  t: TFunction = englishTranslator(),
): MissingPermission {
  if (!permission)
    return {
      permission: null,
      message: say(t, "access.superAdminOnly"),
      grantedBy: say(t, "access.askSuperAdmin"),
    };
  return {
    permission,
    message: `Your account does not have the "${labelOf(permission)}" permission (${permission}) needed for this page.`,
    grantedBy: `A super admin, or someone whose role has the "${labelOf(GRANTOR)}" permission (${GRANTOR}), can grant it.`,
  };
}
