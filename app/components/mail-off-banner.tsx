import { MailWarning } from "lucide-react";
import { Link } from "react-router";
import { useTranslation } from "../i18n/use-translation";
import { alertVariants } from "./ui/alert";
import { cn } from "./ui/cn";
import { linkVariants } from "./ui/link";

/** On every page while no mail provider is set up: the outbox looks routine, and nobody receives a thing. */
export function MailOffBanner({ fix }: { fix: boolean }) {
  const { t } = useTranslation();
  return (
    <div
      role="status"
      data-testid="mail-off-banner"
      className={cn(
        alertVariants({ variant: "warning" }),
        "mb-4 flex flex-wrap items-center gap-x-3 gap-y-1 p-3",
      )}
    >
      <MailWarning aria-hidden className="size-4 shrink-0" />
      <p className="flex-1">{t("shell:mailOff.text")}</p>
      {fix ? (
        <Link to="/dashboard/settings/system" className={cn(linkVariants(), "font-medium")}>
          {t("shell:mailOff.fix")}
        </Link>
      ) : (
        <span className="text-sm">{t("shell:mailOff.ask")}</span>
      )}
    </div>
  );
}
