import { Circle, CircleCheck } from "lucide-react";
import { Link, useFetcher } from "react-router";
import { Button } from "../../components/ui/button";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import { useTranslation } from "../../i18n/use-translation";
import type { MarkableStep, SetupStep } from "../../overview/setup-checklist.server";
import type { action } from "./route";

/** Where each step is done; backups are made outside the product (its text says how). */
const WHERE: Partial<Record<SetupStep, string>> = {
  mail: "/dashboard/settings/system",
  admin: "/dashboard/users?new=invite",
  twoFactor: "/dashboard/settings/security",
  sso: "/dashboard/settings/sso",
};
const MARKABLE: readonly SetupStep[] = ["sso", "backups"] satisfies MarkableStep[];

/** A fresh install's first steps, for a super admin; gone once every one is done. */
export function SetupChecklist({ steps }: { steps: { step: SetupStep; done: boolean }[] }) {
  const { t } = useTranslation();
  const left = steps.filter((s) => !s.done).length;
  return (
    <section
      aria-labelledby="setup-heading"
      className="rounded-lg border bg-card p-4"
      data-testid="setup-checklist"
    >
      <h2 id="setup-heading" className="font-semibold">
        {t("overview:setup.title")}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t("overview:setup.left", { count: left })}</p>
      <ol className="mt-3 flex flex-col gap-3">
        {steps.map(({ step, done }) => (
          <li key={step} className="flex flex-wrap items-start gap-x-3 gap-y-1">
            {done ? (
              <CircleCheck aria-hidden className="mt-0.5 size-4 shrink-0 text-success" />
            ) : (
              <Circle aria-hidden className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
            )}
            <div className="flex-1 text-sm">
              <p className={cn("font-medium", done && "text-muted-foreground line-through")}>
                {t(`overview:setup.${step}.title`)}
                <span className="sr-only"> {done ? t("overview:setup.done") : t("overview:setup.todo")}</span>
              </p>
              {done ? null : <p className="text-muted-foreground">{t(`overview:setup.${step}.why`)}</p>}
            </div>
            {done ? null : (
              <div className="flex items-center gap-3">
                {WHERE[step] ? (
                  <Link to={WHERE[step]} className={cn(linkVariants(), "text-sm font-medium")}>
                    {t(`overview:setup.${step}.go`)}
                  </Link>
                ) : null}
                {MARKABLE.includes(step) ? <MarkDone step={step as MarkableStep} /> : null}
              </div>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function MarkDone({ step }: { step: MarkableStep }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="setup-done" />
      <input type="hidden" name="step" value={step} />
      <Button variant="secondary" size="xs" pending={fetcher.state !== "idle"}>
        {t(`overview:setup.${step}.mark`)}
      </Button>
    </fetcher.Form>
  );
}
