import { Menu, ShieldAlert, X } from "lucide-react";
import { useState } from "react";
import {
  Form,
  isRouteErrorResponse,
  Outlet,
  useLoaderData,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import { requireUser } from "../access/guard.server";
import { NoAccess } from "../components/no-access";
import { NotificationBell } from "../components/notifications/notification-bell";
import { Sidebar } from "../components/sidebar";
import { TaskCentre } from "../components/tasks/task-centre";
import { ThemeSwitch } from "../components/theme-switch";
import { UserMenu } from "../components/user-menu";
import { unreadCount } from "../notifications/inbox.server";
import type { loader as rootLoader } from "../root";
import type { Route } from "./+types/dashboard";

// dashboard.access and a temporary password are enforced by accessGateMiddleware (root), which
// also covers the child routes' own data requests and actions that never run this loader.
export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  return { unread: await unreadCount(user.id), mustChangePassword: user.mustChangePassword };
}

function useRoot() {
  return useRouteLoaderData<typeof rootLoader>("root");
}

export default function DashboardLayout() {
  const root = useRoot();
  const layout = useLoaderData<typeof loader>();
  const [open, setOpen] = useState(false);
  if (!root?.user) return null;
  return (
    <div className="flex min-h-dvh">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:p-2"
      >
        Skip to content
      </a>
      <aside
        id="sidebar"
        className={`fixed inset-y-0 left-0 z-30 w-64 border-r border-slate-200 bg-white transition-transform md:static md:translate-x-0 dark:border-slate-800 dark:bg-slate-900 ${open ? "translate-x-0" : "-translate-x-full"}`}
      >
        <div className="flex h-14 items-center justify-between border-b border-slate-200 px-4 dark:border-slate-800">
          <span className="font-semibold">{root.appName}</span>
          <button
            type="button"
            className="rounded p-1 md:hidden"
            aria-label="Close menu"
            onClick={() => setOpen(false)}
          >
            <X aria-hidden className="size-5" />
          </button>
        </div>
        <Sidebar items={root.sidebar} onNavigate={() => setOpen(false)} />
      </aside>
      {open ? (
        <button
          type="button"
          aria-label="Close menu"
          className="fixed inset-0 z-20 bg-black/40 md:hidden"
          onClick={() => setOpen(false)}
        />
      ) : null}
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 items-center gap-2 border-b border-slate-200 bg-white px-4 dark:border-slate-800 dark:bg-slate-900">
          <button
            type="button"
            className="rounded p-2 md:hidden"
            aria-label="Open menu"
            aria-controls="sidebar"
            aria-expanded={open}
            onClick={() => setOpen(true)}
          >
            <Menu aria-hidden className="size-5" />
          </button>
          <div className="flex-1" />
          <TaskCentre />
          <NotificationBell initialUnread={layout.unread} />
          <ThemeSwitch theme={root.theme} />
          <UserMenu name={root.user.name} email={root.user.email} />
        </header>
        <main id="main" className="flex-1 p-4 md:p-8">
          {layout.mustChangePassword ? (
            <p
              role="alert"
              className="mb-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
            >
              Your password was set by an administrator. Choose a new password below to continue.
            </p>
          ) : null}
          <Outlet />
        </main>
      </div>
    </div>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const root = useRoot();
  if (isRouteErrorResponse(error) && error.status === 403)
    return <NoAccess message={error.data?.message} email={root?.user?.email} />;
  return (
    <main className="mx-auto max-w-lg p-8" data-testid="error">
      <ShieldAlert aria-hidden className="size-10 text-amber-600" />
      <h1 className="mt-2 text-2xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-slate-700 dark:text-slate-300">Please try again in a moment.</p>
      {root?.user ? (
        <Form method="post" action="/logout" className="mt-4">
          <button
            type="submit"
            className="rounded-md border border-slate-300 px-4 py-2 text-sm dark:border-slate-600"
          >
            Sign out ({root.user.email})
          </button>
        </Form>
      ) : null}
    </main>
  );
}
