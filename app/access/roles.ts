import type { PermissionKey } from "./permissions";

export type SeedRole = {
  name: string;
  label: string;
  permissions: "*" | readonly PermissionKey[];
};

// The five system roles (docs/rules.md, "Seed"); the seed writes them, the UI refuses to delete them.
export const SYSTEM_ROLES: readonly SeedRole[] = [
  { name: "super_admin", label: "Super Admin", permissions: "*" },
  {
    name: "admin",
    label: "Administrator",
    permissions: [
      "dashboard.access",
      "user.read",
      "user.write",
      "user.update",
      "user.delete",
      "roles.manage",
      "log.read",
      "settings.manage",
      "team.read",
      "team.write",
    ],
  },
  {
    name: "manager",
    label: "Manager",
    permissions: ["dashboard.access", "user.read", "team.read", "team.write"],
  },
  { name: "user", label: "User", permissions: ["dashboard.access"] },
  { name: "guest", label: "Guest", permissions: [] },
];

export const DEFAULT_ROLE_FOR_NEW_USERS = "user";
