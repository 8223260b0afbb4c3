import type { ReactNode } from "react";
import { Link } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { linkVariants } from "../ui/link";

/** A Settings page of its own (single sign-on, directories): the way back to Settings, its title. */
export function SettingsSubpage({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <p className="text-sm">
        <Link to="/dashboard/settings#system" className={linkVariants()}>
          {t("settings:sso.back")}
        </Link>
      </p>
      <h1 className="text-2xl font-semibold">{title}</h1>
      {children}
    </div>
  );
}
