import { Eye } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Trans } from "react-i18next";
import { Form, useNavigation, useRevalidator } from "react-router";
import { useTranslation } from "../i18n/use-translation";
import { alertVariants } from "./ui/alert";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";

export type Impersonation = { by: string; until: string | null };

function minutesLeft(until: string | null, at: number) {
  if (!until) return 0;
  return Math.max(0, Math.ceil((Date.parse(until) - at) / 60_000));
}

/**
 * Shown on every dashboard page while a super admin views as someone ("View as"): whom, how long
 * is left, and "Stop". When the time runs out the page reloads its data, which resolves as the
 * super admin again (the server ends the view by itself).
 */
export function ImpersonationBanner({
  name,
  email,
  impersonation,
}: {
  name: string;
  email: string;
  impersonation: Impersonation;
}) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  const revalidator = useRevalidator();
  const stopping = useNavigation().formAction === "/impersonation/stop";
  const left = minutesLeft(impersonation.until, now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (left > 0 || asked.current === impersonation.until) return;
    asked.current = impersonation.until;
    void revalidator.revalidate();
  }, [left, impersonation.until, revalidator]);

  return (
    <section
      aria-label={t("shell:impersonation.label")}
      data-testid="impersonation-banner"
      className={cn(
        alertVariants({ variant: "warning" }),
        "flex flex-wrap items-center gap-3 rounded-none border-b border-warning/40 px-4 py-2",
      )}
    >
      <Eye aria-hidden className="size-4 shrink-0" />
      <p className="min-w-0 flex-1">
        <Trans
          i18nKey="shell:impersonation.viewing"
          values={{ by: impersonation.by, name, email }}
          components={{ strong: <strong /> }}
        />{" "}
        <span suppressHydrationWarning>
          {left <= 1
            ? t("shell:impersonation.lessThanAMinute")
            : t("shell:impersonation.minutesLeft", { count: left })}
        </span>
      </p>
      <Form method="post" action="/impersonation/stop">
        <Button variant="secondary" size="sm" pending={stopping}>
          {t("shell:impersonation.stop", { name })}
        </Button>
      </Form>
    </section>
  );
}
