import { useState } from "react";
import { useFetcher, useSearchParams } from "react-router";
import type { LabelTranslations } from "../../access/label-translations";
import { roleLabel } from "../../access/role-labels";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { controlVariants, errorTextClass, hintClass, labelClass, Textarea } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

type Requestable = { name: string; label: string; translations: LabelTranslations; maxHours: number };

/** The request form: a role someone made requestable, how long, and why. */
export function AskForRole({
  roles,
  teams,
}: {
  roles: Requestable[];
  teams: { id: string; name: string }[];
}) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  // From the refusal page's "Ask for …": that role chosen already.
  const [params] = useSearchParams();
  const asked = params.get("role");
  const [role, setRole] = useState(roles.some((r) => r.name === asked) ? asked! : (roles[0]?.name ?? ""));
  const max = roles.find((r) => r.name === role)?.maxHours ?? 1;
  const answer = fetcher.data && fetcher.data.intent === "request" ? fetcher.data : undefined;
  const errors = (answer && "errors" in answer ? answer.errors : {}) as Record<string, string>;
  const pending = fetcher.state !== "idle";
  if (roles.length === 0)
    return (
      <Card title={t("access:requests.ask")}>
        <p className="text-sm text-muted-foreground">{t("access:requests.noneRequestable")}</p>
      </Card>
    );
  return (
    <Card title={t("access:requests.ask")}>
      <fetcher.Form method="post" className="grid gap-4 sm:grid-cols-2">
        <input type="hidden" name="intent" value="request" />
        <div>
          <label htmlFor="request-role" className={labelClass}>
            {t("access:requests.role")}
          </label>
          <select
            id="request-role"
            name="role"
            value={role}
            onChange={(e) => setRole(e.target.value)}
            className={controlVariants()}
            aria-invalid={errors.role ? true : undefined}
            aria-describedby={errors.role ? "request-role-error" : undefined}
          >
            {roles.map((r) => (
              <option key={r.name} value={r.name}>
                {roleLabel(t, r)}
              </option>
            ))}
          </select>
          {errors.role ? (
            <p id="request-role-error" className={errorTextClass}>
              {errors.role}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor="request-team" className={labelClass}>
            {t("access:requests.scope")}
          </label>
          <select id="request-team" name="team" className={controlVariants()} defaultValue="">
            <option value="">{t("access:requests.everyone")}</option>
            {teams.map((team) => (
              <option key={team.id} value={team.id}>
                {t("access:requests.inTeam", { team: team.name })}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="request-hours" className={labelClass}>
            {t("access:requests.hours")}
          </label>
          <input
            id="request-hours"
            name="hours"
            type="number"
            min={1}
            max={max}
            defaultValue={Math.min(1, max)}
            required
            className={controlVariants()}
            aria-invalid={errors.hours ? true : undefined}
            aria-describedby={errors.hours ? "request-hours-hint request-hours-error" : "request-hours-hint"}
          />
          <p id="request-hours-hint" className={hintClass}>
            {t("access:requests.hoursHint", { max })}
          </p>
          {errors.hours ? (
            <p id="request-hours-error" className={errorTextClass}>
              {errors.hours}
            </p>
          ) : null}
        </div>
        <div className="sm:col-span-2">
          <label htmlFor="request-reason" className={labelClass}>
            {t("access:requests.reason")}
          </label>
          <Textarea
            id="request-reason"
            name="reason"
            rows={2}
            maxLength={500}
            required
            aria-invalid={errors.reason ? true : undefined}
            aria-describedby={errors.reason ? "request-reason-error" : undefined}
          />
          {errors.reason ? (
            <p id="request-reason-error" className={errorTextClass}>
              {errors.reason}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
          <Button pending={pending}>{t("access:requests.send")}</Button>
          <p role="status" className="text-sm">
            {answer && "message" in answer && answer.ok ? answer.message : ""}
          </p>
        </div>
        <FormError message={answer && "formError" in answer ? answer.formError : null} />
      </fetcher.Form>
    </Card>
  );
}
