import { Form } from "react-router";
import { Button } from "../../components/ui/button";
import { cn } from "../../components/ui/cn";
import { controlVariants, labelClass } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";

const IDLE_CHOICES = ["", "15", "60", "1440"] as const;

/** A GET form: the filters live in the address, so a filtered list can be shared and reloaded. */
export function SessionFilters({ filters }: { filters: { q: string; ip: string; idle: string } }) {
  const { t } = useTranslation();
  return (
    <Form method="get" className="flex flex-wrap items-end gap-3" aria-label={t("users:sessions.filters")}>
      <div>
        <label htmlFor="sessions-q" className={labelClass}>
          {t("users:sessions.person")}
        </label>
        <input id="sessions-q" name="q" defaultValue={filters.q} className={cn(controlVariants(), "w-56")} />
      </div>
      <div>
        <label htmlFor="sessions-ip" className={labelClass}>
          {t("users:sessions.address")}
        </label>
        <input
          id="sessions-ip"
          name="ip"
          defaultValue={filters.ip}
          placeholder="10.1."
          className={cn(controlVariants(), "w-40 font-mono")}
        />
      </div>
      <div>
        <label htmlFor="sessions-idle" className={labelClass}>
          {t("users:sessions.idleFor")}
        </label>
        <select id="sessions-idle" name="idle" defaultValue={filters.idle} className={controlVariants()}>
          {IDLE_CHOICES.map((v) => (
            <option key={v} value={v}>
              {v ? t("users:sessions.idleChoice", { count: Number(v) }) : t("users:sessions.idleAny")}
            </option>
          ))}
        </select>
      </div>
      <Button type="submit" variant="secondary">
        {t("users:sessions.apply")}
      </Button>
    </Form>
  );
}
