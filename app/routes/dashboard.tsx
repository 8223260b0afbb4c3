import { ShieldAlert } from "lucide-react";
import { isRouteErrorResponse, Outlet, useRouteError, useRouteLoaderData } from "react-router";
import { can } from "../access/check";
import { requireUser } from "../auth/guard.server";
import { DashboardShell } from "../components/dashboard-shell";
import { MailOffBanner } from "../components/mail-off-banner";
import { NoAccess } from "../components/no-access";
import { errorPageName, pageTitle } from "../components/page-title";
import { RequestReference } from "../components/request-reference";
import { alertVariants } from "../components/ui/alert";
import { cn } from "../components/ui/cn";
import { useTranslation } from "../i18n/use-translation";
import { mailHasProvider } from "../mail/transport.server";
import { unreadCount } from "../notifications/inbox.server";
import type { loader as rootLoader } from "../root";
import type { Route } from "./+types/dashboard";

// dashboard.access and a temporary password are enforced by accessGateMiddleware (root), which
// also covers the child routes' own data requests and actions that never run this loader.
export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  // Said to whoever sends mail through the product (invitations, resets) or could set it up.
  const toldOfMail = user.isSuperAdmin || can(user, "user.write") || can(user, "settings.manage");
  return {
    unread: await unreadCount(user.id),
    mailOff: toldOfMail && !(await mailHasProvider()),
    mustChangePassword: user.mustChangePassword,
    // The gate holds the account to Settings: the live header widgets' endpoints refuse it.
    held: user.mustChangePassword || Boolean(user.twoFactorEnrolmentDue),
  };
}

/** The shell around whatever this route renders: a page, or its boundary's message. */
function Shell({ children }: { children: React.ReactNode }) {
  const { t } = useTranslation();
  const root = useRouteLoaderData<typeof rootLoader>("root");
  // Also read by the error boundary, where this route's own loader may have failed.
  const layout = useRouteLoaderData<typeof loader>("routes/dashboard");
  if (!root?.user) return <main className="mx-auto max-w-lg p-8">{children}</main>;
  return (
    <DashboardShell
      appName={root.appName}
      user={root.user}
      sidebar={root.sidebar}
      theme={root.theme}
      unread={layout?.unread ?? 0}
      held={layout?.held ?? false}
    >
      {layout?.mailOff ? <MailOffBanner fix={root.user.isSuperAdmin} /> : null}
      {layout?.mustChangePassword ? (
        <p role="alert" className={cn(alertVariants({ variant: "warning" }), "mb-4 p-3")}>
          {t("shell:mustChangePassword")}
        </p>
      ) : null}
      {children}
    </DashboardShell>
  );
}

export default function DashboardLayout() {
  return (
    <Shell>
      <Outlet />
    </Shell>
  );
}

export const meta: Route.MetaFunction = ({ matches, error }) =>
  pageTitle(matches, error ? errorPageName(error) : "dashboard");

export function ErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  if (isRouteErrorResponse(error) && error.status === 403)
    return (
      <Shell>
        <NoAccess
          permission={error.data?.permission}
          message={error.data?.message}
          grantedBy={error.data?.grantedBy}
          roles={error.data?.roles}
          requestable={error.data?.requestable}
        />
      </Shell>
    );
  if (isRouteErrorResponse(error) && error.status === 404)
    return (
      <Shell>
        <h1 className="text-2xl font-semibold">{t("common:error.notFoundTitle")}</h1>
        <p className="mt-2 text-muted-foreground">{error.data?.message ?? t("common:error.notFound")}</p>
      </Shell>
    );
  return (
    <Shell>
      <div data-testid="error">
        <ShieldAlert aria-hidden className="size-10 text-warning" />
        <h1 className="mt-2 text-2xl font-semibold">{t("shell:error.title")}</h1>
        <p className="mt-2 text-muted-foreground">{t("shell:error.tryAgain")}</p>
        <RequestReference />
      </div>
    </Shell>
  );
}
