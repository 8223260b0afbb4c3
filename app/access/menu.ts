import type { PermissionKey } from "./permissions";

/** app/components/icons.ts maps each to its lucide component. */
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

/** Chosen from these, never typed, so an item cannot lead off the app; menu-paths.test.ts keeps them in step with app/routes.ts. */
export const MENU_PATHS = [
  "/dashboard",
  "/dashboard/users",
  "/dashboard/users/import",
  "/dashboard/teams",
  "/dashboard/access",
  "/dashboard/access/requests",
  "/dashboard/access/reviews",
  "/dashboard/logs",
  "/dashboard/sessions",
  "/dashboard/settings",
  "/dashboard/settings/profile",
  "/dashboard/settings/security",
  "/dashboard/settings/api-tokens",
  "/dashboard/settings/invite",
  "/dashboard/settings/system",
  "/dashboard/settings/email-templates",
  "/dashboard/settings/webhooks",
  "/dashboard/settings/sso",
  "/dashboard/settings/directory",
  "/dashboard/broadcast",
  "/dashboard/tasks",
  "/dashboard/api-reference",
] as const;

export type SeedMenuItem = {
  order: number;
  title: string;
  url: string;
  icon: MenuIconName;
  requiredPermission: PermissionKey;
};

/** The seed rewrites it whenever it adds menu rows, so running servers notice rows another process wrote. */
export const MENU_VERSION_KEY = "menu_version";

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
