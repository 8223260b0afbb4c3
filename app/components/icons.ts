import {
  Activity,
  Bell,
  Building2,
  Calendar,
  ChartBar,
  Circle,
  Database,
  FileText,
  Folder,
  House,
  Inbox,
  KeyRound,
  LayoutDashboard,
  type LucideIcon,
  Mail,
  Megaphone,
  Settings,
  ShieldCheck,
  Users,
  UsersRound,
} from "lucide-react";
import type { MenuIconName } from "../access/menu";

// The icons a menu row may name. Listed explicitly so the bundle carries these and not all of lucide.
export const MENU_ICONS = {
  Activity,
  Bell,
  Building2,
  Calendar,
  ChartBar,
  Database,
  FileText,
  Folder,
  House,
  Inbox,
  KeyRound,
  LayoutDashboard,
  Mail,
  Megaphone,
  Settings,
  ShieldCheck,
  Users,
  UsersRound,
} satisfies Record<MenuIconName, LucideIcon>;

/** Unknown names fall back to a neutral circle rather than failing the render. */
export function menuIcon(name: string): LucideIcon {
  return (MENU_ICONS as Record<string, LucideIcon>)[name] ?? Circle;
}
