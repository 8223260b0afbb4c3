import type { PermissionKey } from "./permissions";
import { type RoleGrant, roleGrants } from "./role-cache.server";

// Who a stranger becomes by registering (docs/rules.md, "Accounts and access"): a role that grants
// nothing beyond opening the dashboard, never super_admin, never one that reads others' data or
// changes anything. Checked when the setting is saved and again at each registration, since a role
// may be given more permissions after it was chosen.

const SELF_REGISTRATION_PERMISSIONS: ReadonlySet<PermissionKey> = new Set(["dashboard.access"]);

function fitsSelfRegistration(role: RoleGrant): boolean {
  return (
    !role.all && [...role.permissions].every((p) => SELF_REGISTRATION_PERMISSIONS.has(p as PermissionKey))
  );
}

/** The roles a self-registered account may get, in the role order. */
export async function selfRegistrationRoles(): Promise<RoleGrant[]> {
  return [...(await roleGrants()).values()].filter(fitsSelfRegistration);
}

/** The role named `name` when it exists and fits self-registration, else null. */
export async function selfRegistrationRole(name: string): Promise<RoleGrant | null> {
  return (await selfRegistrationRoles()).find((r) => r.name === name) ?? null;
}
