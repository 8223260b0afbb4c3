import { useEffect } from "react";
import { Form, NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { oldTabPath, type SettingsSection, settingsMenu, settingsPath } from "../../access/settings-pages";
import { requirePermission } from "../../auth/guard.server";
import { Button, focusRing } from "../../components/ui/button";
import { controlVariants } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import type { Route } from "./+types/route";

// Settings' frame: the heading and the menu of its pages, in two groups (app/access/settings-pages.ts).
// Each page is a route of its own with its own loader, action and error boundary.

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  return settingsMenu(user);
}

const LABEL_KEY = {
  profile: "settings:menu.profile",
  security: "settings:menu.security",
  "api-tokens": "settings:menu.apiTokens",
  invite: "settings:menu.invite",
  system: "settings:menu.system",
  "email-templates": "settings:menu.emailTemplates",
  webhooks: "settings:menu.webhooks",
  sso: "settings:menu.sso",
  directory: "settings:menu.directory",
} as const satisfies Record<SettingsSection, string>;

/**
 * An address of the single page Settings was (`#system`) opens the page its tab became, keeping
 * its query (the gates' `?mustChange=1&redirectTo=`).
 */
function useOldTabAddresses() {
  const { hash, search, pathname } = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const to = oldTabPath(hash);
    if (!to) return;
    const [path, anchor] = to.split("#");
    if (path === pathname && (anchor ?? "") === hash.slice(1)) return;
    navigate({ pathname: path, search, hash: anchor ? `#${anchor}` : "" }, { replace: true });
  }, [hash, search, pathname, navigate]);
}

export default function SettingsLayout({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  useOldTabAddresses();
  const groups = [
    { name: t("settings:menu.account"), sections: loaderData.account },
    { name: t("settings:menu.workspace"), sections: loaderData.workspace },
  ].filter((g) => g.sections.length > 0);
  const current = pathname.split("/")[3] ?? "profile";
  return (
    <div className="flex max-w-5xl flex-col gap-4">
      <h1 className="text-2xl font-semibold">{t("settings:title")}</h1>
      {/* Phones: the pages as a select, opened by its button (the index route follows ?section=). */}
      <Form method="get" action="/dashboard/settings" className="flex items-end gap-2 md:hidden">
        <label className="flex flex-1 flex-col gap-1 text-sm font-medium">
          {t("settings:menu.choose")}
          <select name="section" defaultValue={current} key={current} className={controlVariants()}>
            {groups.map((g) => (
              <optgroup key={g.name} label={g.name}>
                {g.sections.map((s) => (
                  <option key={s} value={s}>
                    {t(LABEL_KEY[s])}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </label>
        <Button type="submit" variant="outline">
          {t("settings:menu.open")}
        </Button>
      </Form>
      <div className="flex flex-col gap-6 md:flex-row">
        <nav aria-label={t("settings:menu.label")} className="hidden w-56 shrink-0 md:block">
          {groups.map((g) => (
            <div key={g.name} className="mb-4">
              <h2 className="mb-1 px-3 text-xs font-semibold uppercase tracking-wide text-muted-foreground">
                {g.name}
              </h2>
              <ul className="flex flex-col gap-1">
                {g.sections.map((s) => (
                  <li key={s}>
                    <NavLink
                      to={settingsPath(s)}
                      className={({ isActive }) =>
                        `block rounded-md px-3 py-2 text-sm font-medium ${focusRing} ${
                          isActive ? "bg-accent text-accent-foreground" : "text-foreground hover:bg-accent"
                        }`
                      }
                    >
                      {t(LABEL_KEY[s])}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <div className="flex min-w-0 max-w-3xl flex-1 flex-col gap-6">
          <Outlet />
        </div>
      </div>
    </div>
  );
}
