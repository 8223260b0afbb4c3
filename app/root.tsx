// First: configures zod before any module builds a schema (see the module).
import "./zod-jitless.client";
import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import { useTranslation } from "./i18n/use-translation";
import "./app.css";
import { sidebarFor } from "./access/menu.server";
import { PERMISSION_KEYS } from "./access/permissions";
import { mayAnywhere } from "./access/reach.server";
import type { ForbiddenData } from "./auth/guard.server";
import { getSessionUser } from "./auth/session.server";
import { NoAccess } from "./components/no-access";
import { errorPageName, pageTitle } from "./components/page-title";
import { RequestIdMeta, RequestReference } from "./components/request-reference";
import { Toaster } from "./components/toaster";
import { cn } from "./components/ui/cn";
import { linkVariants } from "./components/ui/link";
import { TooltipProvider } from "./components/ui/tooltip";
import { useHydrationMarker } from "./components/use-hydrated";
import { nonceContext } from "./http/security.server";
import { readTheme } from "./http/theme.server";
import { readToast } from "./http/toast.server";
import { getLanguage } from "./i18n/i18n.server";
import { useSyncLanguage } from "./i18n/use-sync-language";
import { rootMiddleware } from "./server/root-middleware.server";
import { getSystemConfig } from "./system-settings/system-config.server";

export const middleware: Route.MiddlewareFunction[] = rootMiddleware;

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await getSessionUser({ request, context });
  const [sidebar, theme, flash, appName] = await Promise.all([
    sidebarFor(user),
    readTheme(request),
    readToast(request),
    getSystemConfig("APP_NAME"),
  ]);
  return data(
    {
      user: user && {
        id: user.id,
        name: user.name,
        email: user.email,
        roles: user.roles,
        isSuperAdmin: user.isSuperAdmin,
        permissions: [...user.permissions].sort(),
        anywhere: PERMISSION_KEYS.filter((key) => mayAnywhere(user, key)),
        impersonation: user.impersonator
          ? { by: user.impersonator.email, until: user.impersonator.until ?? null }
          : null,
      },
      sidebar,
      theme,
      toast: flash.toast ? { ...flash.toast, ...(flash.key ? { key: flash.key } : {}) } : null,
      appName,
      language: getLanguage(context),
      nonce: context.get(nonceContext),
    },
    flash.setCookie ? { headers: { "Set-Cookie": flash.setCookie } } : undefined,
  );
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRouteLoaderData<typeof loader>("root");
  const error = useRouteError();
  // The access gate refuses before this loader runs; its refusal carries the theme and the nonce.
  const gate = isRouteErrorResponse(error) ? (error.data as ForbiddenData | undefined)?.shell : undefined;
  const nonce = root?.nonce ?? gate?.nonce;
  const { i18n } = useTranslation();
  useSyncLanguage(root?.language);
  useHydrationMarker();
  return (
    <html lang={i18n.language} data-theme={root?.theme ?? gate?.theme ?? "system"}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links nonce={nonce} />
        <RequestIdMeta />
      </head>
      <body className="min-h-dvh bg-background text-foreground antialiased">
        <TooltipProvider>{children}</TooltipProvider>
        <Toaster toast={root?.toast ?? null} />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  // The access gate refuses in middleware, before the dashboard's own boundary has data to show.
  if (isRouteErrorResponse(error) && error.status === 403 && typeof error.data?.error === "string")
    return (
      <main className="mx-auto max-w-lg p-8">
        <NoAccess
          permission={error.data.permission}
          message={error.data.message}
          grantedBy={error.data.grantedBy}
          roles={error.data.roles}
          signOut
        />
      </main>
    );
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const message =
    status === 404
      ? t("common:error.notFound")
      : isRouteErrorResponse(error)
        ? // Said by the server in the request's language (app/http/form.server.ts, pageRefusal).
          (error.data?.message ?? error.statusText)
        : t("common:error.unexpected");
  return (
    <main className="mx-auto max-w-lg p-8">
      <h1 className="text-2xl font-semibold">
        {status === 404 ? t("common:error.notFoundTitle") : t("common:error.title", { status })}
      </h1>
      <p className="mt-2 text-muted-foreground">{message}</p>
      <RequestReference />
      <a className={cn(linkVariants(), "mt-4 inline-block")} href="/dashboard">
        {t("common:error.backToDashboard")}
      </a>
    </main>
  );
}

// The .ico for browsers and crawlers that ask for /favicon.ico; the SVG for those that take it;
// the PNGs for home screens (iOS reads apple-touch-icon, Android the manifest).
export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.ico", sizes: "32x32" },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/apple-touch-icon.png" },
  { rel: "manifest", href: "/site.webmanifest" },
];

// Pages name themselves with pageTitle(); this covers the rest: errors caught here, and any
// page without its own meta.
export const meta: Route.MetaFunction = ({ matches, error }) =>
  pageTitle(matches, error ? errorPageName(error) : null);
