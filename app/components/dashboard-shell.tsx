import { Menu } from "lucide-react";
import { useEffect, useState } from "react";
import { useLocation } from "react-router";
import { settingsMenu } from "../access/settings-pages";
import { useTranslation } from "../i18n/use-translation";
import { CommandPalette } from "./command-palette/command-palette";
import { type Impersonation, ImpersonationBanner } from "./impersonation-banner";
import { NotificationBell } from "./notifications/notification-bell";
import { Sidebar, type SidebarEntry } from "./sidebar";
import { TaskCentre } from "./tasks/task-centre";
import { ThemeMenu } from "./theme-menu";
import { buttonVariants } from "./ui/button";
import { cn } from "./ui/cn";
import { Sheet, SheetContent, SheetTrigger } from "./ui/sheet";
import { useHydrated } from "./use-hydrated";
import { UserMenu } from "./user-menu";
import { ViewingAsProvider } from "./viewing-as-lock";

export type ShellProps = {
  appName: string;
  user: {
    id: string;
    name: string;
    email: string;
    permissions: string[];
    /** Held within some team at least (decision 044). */
    anywhere: string[];
    isSuperAdmin: boolean;
    impersonation?: Impersonation | null;
  };
  sidebar: SidebarEntry[];
  theme: "light" | "dark" | "system";
  unread: number;
  /** Held to Settings by the access gate (a password or two-factor to set first): no live widgets. */
  held?: boolean;
  children: React.ReactNode;
};

/**
 * The signed-in frame: sidebar, header (tasks, bell, theme, user menu) and the main region. Pages
 * and the dashboard's error boundary (no access, not found) both render inside it, so a refusal is
 * never a dead end. On phones the sidebar is a drawer (a Sheet), rendered only while open.
 */
export function DashboardShell({
  appName,
  user,
  sidebar,
  theme,
  unread,
  held = false,
  children,
}: ShellProps) {
  const { t } = useTranslation();
  const [drawer, setDrawer] = useState(false);
  const { pathname } = useLocation();
  // Any navigation closes the drawer, also one started outside it (a link in the page, back).
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger, not an input
  useEffect(() => setDrawer(false), [pathname]);
  // The drawer's machinery once scripts run (use-hydrated.ts); the same button before.
  const hydrated = useHydrated();
  const menu = settingsMenu(user);
  const settingsSections = [...menu.account, ...menu.workspace];
  const menuButton = cn(buttonVariants({ variant: "ghost", size: "icon" }), "shrink-0 md:hidden");

  return (
    <div className="flex min-h-dvh">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-card focus:p-2 focus:text-card-foreground"
      >
        {t("shell:skipToContent")}
      </a>
      <aside className="hidden w-64 shrink-0 border-r bg-card md:block">
        <div className="flex h-14 items-center border-b px-4">
          <span className="truncate font-semibold" title={appName}>
            {appName}
          </span>
        </div>
        <Sidebar items={sidebar} />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        {user.impersonation ? (
          <ImpersonationBanner name={user.name} email={user.email} impersonation={user.impersonation} />
        ) : null}
        <header className="flex h-14 items-center gap-2 border-b bg-card px-4">
          {hydrated ? (
            <Sheet open={drawer} onOpenChange={setDrawer}>
              <SheetTrigger className={menuButton} aria-label={t("shell:openMenu")}>
                <Menu aria-hidden className="size-5" />
              </SheetTrigger>
              <SheetContent title={appName} side="left" className="md:hidden">
                <Sidebar items={sidebar} onNavigate={() => setDrawer(false)} />
              </SheetContent>
            </Sheet>
          ) : (
            <button
              type="button"
              aria-haspopup="dialog"
              aria-expanded={false}
              className={menuButton}
              aria-label={t("shell:openMenu")}
            >
              <Menu aria-hidden className="size-5" />
            </button>
          )}
          {/* One line at any width: a long name ends in "…" before the header's buttons. */}
          <span className="min-w-0 flex-1 truncate font-semibold md:hidden">{appName}</span>
          <div className="hidden flex-1 md:block" />
          <div className="flex shrink-0 items-center gap-1 sm:gap-2">
            {held ? null : (
              <>
                <CommandPalette
                  userId={user.id}
                  pages={sidebar}
                  sections={settingsSections}
                  may={(permission) => user.isSuperAdmin || user.permissions.includes(permission)}
                  mayAnywhere={(permission) => user.isSuperAdmin || user.anywhere.includes(permission)}
                />
                <TaskCentre />
                <NotificationBell initialUnread={unread} />
              </>
            )}
            <ThemeMenu theme={theme} />
            <UserMenu name={user.name} email={user.email} />
          </div>
        </header>
        <main id="main" className="flex-1 p-4 md:p-8">
          <ViewingAsProvider name={user.impersonation ? user.name : null}>{children}</ViewingAsProvider>
        </main>
      </div>
    </div>
  );
}
