import type { PermissionKey } from "./permissions";

/** The icons a menu row may name; app/components/icons.ts maps each to its lucide component. */
export const MENU_ICON_NAMES = [
  "Activity",
  "Bell",
  "Building2",
  "Calendar",
  "ChartBar",
  "Database",
  "FileText",
  "Folder",
  "House",
  "Inbox",
  "KeyRound",
  "LayoutDashboard",
  "Mail",
  "Megaphone",
  "Settings",
  "ShieldCheck",
  "Users",
  "UsersRound",
] as const;
export type MenuIconName = (typeof MENU_ICON_NAMES)[number];

/**
 * The pages a menu item may lead to: every dashboard page without a parameter in its path
 * (app/routes.ts; app/access/menu-paths.test.ts keeps the two in step). A menu item is chosen
 * from these, never typed, so it cannot lead off the app or to a page that does not exist.
 */
export const MENU_PATHS = [
  "/dashboard",
  "/dashboard/users",
  "/dashboard/users/import",
  "/dashboard/teams",
  "/dashboard/access",
  "/dashboard/logs",
  "/dashboard/settings",
  "/dashboard/settings/profile",
  "/dashboard/settings/security",
  "/dashboard/settings/api-tokens",
  "/dashboard/settings/invite",
  "/dashboard/settings/system",
  "/dashboard/settings/webhooks",
  "/dashboard/settings/sso",
  "/dashboard/settings/directory",
  "/dashboard/broadcast",
  "/dashboard/tasks",
] as const;

export type SeedMenuItem = {
  order: number;
  title: string;
  url: string;
  icon: MenuIconName;
  requiredPermission: PermissionKey;
};

/**
 * A `system_setting` row (not a setting: no Settings page lists it) the seed rewrites whenever it
 * adds menu rows, so running servers notice rows written by another process (app/access/menu.server.ts).
 */
export const MENU_VERSION_KEY = "menu_version";

// The sidebar rows the seed creates; admins may edit them afterwards in the database.
export const SEED_MENU_ITEMS: readonly SeedMenuItem[] = [
  {
    order: 1,
    title: "Dashboard",
    url: "/dashboard",
    icon: "LayoutDashboard",
    requiredPermission: "dashboard.access",
  },
  { order: 2, title: "Users", url: "/dashboard/users", icon: "Users", requiredPermission: "user.read" },
  { order: 3, title: "Teams", url: "/dashboard/teams", icon: "UsersRound", requiredPermission: "team.read" },
  {
    order: 4,
    title: "Access Control",
    url: "/dashboard/access",
    icon: "ShieldCheck",
    requiredPermission: "roles.manage",
  },
  { order: 5, title: "Audit Logs", url: "/dashboard/logs", icon: "FileText", requiredPermission: "log.read" },
  {
    order: 6,
    title: "Settings",
    url: "/dashboard/settings",
    icon: "Settings",
    requiredPermission: "dashboard.access",
  },
  {
    order: 7,
    title: "Broadcast",
    url: "/dashboard/broadcast",
    icon: "Megaphone",
    requiredPermission: "settings.manage",
  },
];
