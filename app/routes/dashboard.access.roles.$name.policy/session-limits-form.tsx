import { useFetcher } from "react-router";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { controlVariants, errorTextClass, hintClass, labelClass } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

/** Blank fields: the global limits (Settings → System) apply to the role's holders. */
export function SessionLimitsForm({
  role,
}: {
  role: { id: string; sessionIdleMinutes: number | null; sessionMaxHours: number | null };
}) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  const answer =
    fetcher.data && "intent" in fetcher.data && fetcher.data.intent === "sessions" ? fetcher.data : null;
  const errors = (answer && "errors" in answer ? answer.errors : {}) as Record<string, string>;
  const field = (name: "idleMinutes" | "maxHours", value: number | null, max: number) => (
    <div>
      <label htmlFor={`role-${name}`} className={labelClass}>
        {t(`access:policy.${name}`)}
      </label>
      <input
        id={`role-${name}`}
        name={name}
        type="number"
        min={1}
        max={max}
        defaultValue={value ?? ""}
        className={cn(controlVariants(), "w-32")}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `role-${name}-hint role-${name}-error` : `role-${name}-hint`}
      />
      <p id={`role-${name}-hint`} className={hintClass}>
        {t(`access:policy.${name}Hint`)}
      </p>
      {errors[name] ? (
        <p id={`role-${name}-error`} className={errorTextClass}>
          {errors[name]}
        </p>
      ) : null}
    </div>
  );
  return (
    <Card title={t("access:policy.sessions")}>
      <fetcher.Form method="post" className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="sessions" />
        <input type="hidden" name="roleId" value={role.id} />
        <div className="flex flex-wrap gap-6">
          {field("idleMinutes", role.sessionIdleMinutes, 43_200)}
          {field("maxHours", role.sessionMaxHours, 8_760)}
        </div>
        <div>
          <Button pending={fetcher.state !== "idle"}>{t("access:policy.saveSessions")}</Button>
        </div>
        <FormError message={answer && "formError" in answer ? answer.formError : null} />
      </fetcher.Form>
    </Card>
  );
}
