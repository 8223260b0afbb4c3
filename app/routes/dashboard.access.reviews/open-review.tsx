import { useFetcher } from "react-router";
import { MAX_REVIEW_DAYS } from "../../access/access-review-schemas";
import type { LabelTranslations } from "../../access/label-translations";
import { roleLabel } from "../../access/role-labels";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { controlVariants, errorTextClass, hintClass, Input, labelClass } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

type Role = { name: string; label: string; translations: LabelTranslations };

/** A review's name, what it covers (a role, a team or both), when it is due and what then. */
export function OpenReview({ roles, teams }: { roles: Role[]; teams: { id: string; name: string }[] }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.data && "errors" in fetcher.data ? fetcher.data : undefined;
  const errors = (answer?.errors ?? {}) as Record<string, string>;
  const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const error = (name: string) =>
    errors[name] ? (
      <p id={`review-${name}-error`} className={errorTextClass}>
        {errors[name]}
      </p>
    ) : null;
  const described = (name: string, hint?: boolean) =>
    [hint ? `review-${name}-hint` : "", errors[name] ? `review-${name}-error` : ""]
      .filter(Boolean)
      .join(" ") || undefined;
  return (
    <Card title={t("access:reviews.open")}>
      <fetcher.Form method="post" className="grid gap-4 sm:grid-cols-2">
        <input type="hidden" name="intent" value="open" />
        <div className="sm:col-span-2">
          <label htmlFor="review-name" className={labelClass}>
            {t("access:reviews.name")}
          </label>
          <Input
            id="review-name"
            name="name"
            required
            maxLength={120}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={described("name")}
          />
          {error("name")}
        </div>
        <div>
          <label htmlFor="review-role" className={labelClass}>
            {t("access:reviews.role")}
          </label>
          <select
            id="review-role"
            name="role"
            defaultValue=""
            className={controlVariants()}
            aria-invalid={errors.role ? true : undefined}
            aria-describedby={described("role", true)}
          >
            <option value="">{t("access:reviews.anyRole")}</option>
            {roles.map((r) => (
              <option key={r.name} value={r.name}>
                {roleLabel(t, r)}
              </option>
            ))}
          </select>
          <p id="review-role-hint" className={hintClass}>
            {t("access:reviews.coversHint")}
          </p>
          {error("role")}
        </div>
        <div>
          <label htmlFor="review-team" className={labelClass}>
            {t("access:reviews.team")}
          </label>
          <select
            id="review-team"
            name="team"
            defaultValue=""
            className={controlVariants()}
            aria-invalid={errors.team ? true : undefined}
            aria-describedby={described("team")}
          >
            <option value="">{t("access:reviews.anyTeam")}</option>
            {teams.map((team) => (
              <option key={team.id} value={team.id}>
                {team.name}
              </option>
            ))}
          </select>
          {error("team")}
        </div>
        <div>
          <label htmlFor="review-dueAt" className={labelClass}>
            {t("access:reviews.due")}
          </label>
          <Input
            id="review-dueAt"
            name="dueAt"
            type="date"
            required
            defaultValue={day(14)}
            min={day(0)}
            max={day(MAX_REVIEW_DAYS - 1)}
            aria-invalid={errors.dueAt ? true : undefined}
            aria-describedby={described("dueAt")}
          />
          {error("dueAt")}
        </div>
        <fieldset>
          <legend className={labelClass}>{t("access:reviews.onOverdue")}</legend>
          <div className="mt-2 flex flex-wrap gap-4 text-sm">
            {(["keep", "revoke"] as const).map((rule) => (
              <label key={rule} className="flex items-center gap-2">
                <input type="radio" name="onOverdue" value={rule} defaultChecked={rule === "keep"} />
                {t(`access:reviews.overdue.${rule}`)}
              </label>
            ))}
          </div>
          {error("onOverdue")}
        </fieldset>
        <div className="sm:col-span-2">
          <Button pending={fetcher.state !== "idle"}>{t("access:reviews.openButton")}</Button>
          <FormError message={answer?.formError} />
        </div>
      </fetcher.Form>
    </Card>
  );
}
