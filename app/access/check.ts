import type { PermissionKey } from "./permissions";

export type AccessSubject = { isSuperAdmin: boolean; permissions: ReadonlySet<string> | readonly string[] };

/** super_admin's '*' passes every check, including permissions added after seeding. */
export function can(subject: AccessSubject | null | undefined, permission: PermissionKey | string): boolean {
  if (!subject) return false;
  if (subject.isSuperAdmin) return true;
  const held = subject.permissions;
  return Array.isArray(held) ? held.includes(permission) : (held as ReadonlySet<string>).has(permission);
}
