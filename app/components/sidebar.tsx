import { NavLink } from "react-router";
import type { LabelTranslations } from "../access/label-translations";
import { useTranslation } from "../i18n/use-translation";
import { menuIcon } from "./icons";
import { menuLabel } from "./sidebar-labels";

export type SidebarEntry = {
  id: string;
  title: string;
  url: string;
  icon: string;
  translations?: LabelTranslations;
};

export function Sidebar({ items, onNavigate }: { items: SidebarEntry[]; onNavigate?: () => void }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t("shell:mainNavigation")} className="flex flex-col gap-1 p-3">
      <ul className="flex flex-col gap-1" data-testid="sidebar">
        {items.map((item) => {
          const Icon = menuIcon(item.icon);
          return (
            <li key={item.id}>
              <NavLink
                to={item.url}
                end={item.url === "/dashboard"}
                onClick={onNavigate}
                className={({ isActive }) =>
                  `flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium ${
                    isActive ? "bg-primary text-primary-foreground" : "text-foreground hover:bg-accent"
                  }`
                }
              >
                <Icon aria-hidden className="size-4" />
                <span>{menuLabel(t, item)}</span>
              </NavLink>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
