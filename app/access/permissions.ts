// The one list of permissions. Seed, sync, guards, types and the UI all read it.
export const PERMISSIONS = [
  { key: "dashboard.access", label: "Access Dashboard" },
  { key: "user.read", label: "View Users" },
  { key: "user.write", label: "Create Users" },
  { key: "user.update", label: "Edit Users" },
  { key: "user.delete", label: "Delete Users" },
  { key: "roles.manage", label: "Manage Roles & Permissions" },
  { key: "log.read", label: "View Audit Logs" },
  { key: "settings.manage", label: "Manage System Settings" },
  { key: "team.read", label: "View Teams" },
  { key: "team.write", label: "Manage Teams" },
] as const;

export type PermissionKey = (typeof PERMISSIONS)[number]["key"];

export const PERMISSION_KEYS: readonly PermissionKey[] = PERMISSIONS.map((p) => p.key);

export function isPermissionKey(value: string): value is PermissionKey {
  return (PERMISSION_KEYS as readonly string[]).includes(value);
}
