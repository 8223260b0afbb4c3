import { useFetcher } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useFormat } from "../../components/format";
import { PasswordField, SelectField, TextField } from "../../components/forms/fields";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import { useTranslation } from "../../i18n/use-translation";
import { systemSettingsSchema } from "../../settings/settings-form";
import { type ConfigView, superAdminRuleOf } from "../../system-settings/config-keys";
import { configHelp, configLabel } from "../../system-settings/config-labels";
import { ReauthFields, type ReauthMethods } from "../dashboard.settings/reauth-fields";
import {
  SectionStatus,
  type SettingsFetcher,
  useSettingsForm,
} from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

export function SystemSection({ config, reauth }: { config: ConfigView[]; reauth: ReauthMethods }) {
  // Keyed by what is stored: after a save or a reset the fields start again from it.
  // The answers stay with the section, outside the keyed form.
  const { t } = useTranslation();
  const stored = config.map((c) => `${c.key}:${c.source}:${c.updatedAt ?? ""}`).join("|");
  const saveFetcher = useFetcher<typeof action>();
  const resetFetcher = useFetcher<typeof action>();
  const answer = (f: SettingsFetcher<typeof action>) => (f.data?.intent === "system" ? f.data : undefined);
  return (
    <Card title={t("settings:system.title")}>
      <SystemForm
        key={stored}
        config={config}
        reauth={reauth}
        saveFetcher={saveFetcher}
        resetFetcher={resetFetcher}
      />
      <SectionStatus answer={answer(saveFetcher)} />
      <SectionStatus answer={answer(resetFetcher)} />
    </Card>
  );
}

function SystemForm({
  config,
  reauth,
  saveFetcher,
  resetFetcher,
}: {
  config: ConfigView[];
  reauth: ReauthMethods;
  saveFetcher: SettingsFetcher<typeof action>;
  resetFetcher: SettingsFetcher<typeof action>;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  // A role is said by its label (a system role's in the page's language); other choices by their key.
  const choiceLabel = (c: ConfigView, value: string | null) => {
    if (!value) return "";
    const role = c.roles?.find((r) => r.name === value);
    return c.roles ? (role ? roleLabel(t, role) : value) : t(`settings:system.choices.${value}`);
  };
  const sourceLabel: Record<ConfigView["source"], string> = {
    database: t("settings:system.source.database"),
    environment: t("settings:system.source.environment"),
    default: t("settings:system.source.default"),
    unset: t("settings:system.source.unset"),
  };
  const save = useSettingsForm("system", systemSettingsSchema, {
    fetcher: saveFetcher,
    defaultValue: Object.fromEntries(
      config.map((c) => [c.key, c.secret || c.source !== "database" ? "" : (c.value ?? "")]),
    ),
  });
  const reset = useSettingsForm("system", systemSettingsSchema, {
    id: "settings-system-reset",
    fetcher: resetFetcher,
  });
  return (
    <>
      <save.fetcher.Form method="post" className="flex flex-col gap-5" {...save.formProps}>
        <input type="hidden" name="intent" value="system" />
        {config.map((c) => {
          const Input = c.secret ? PasswordField : TextField;
          const label = configLabel(t, c.key);
          return (
            <div key={c.key} className="flex flex-col gap-1">
              {c.choices ? (
                <SelectField meta={save.fields[c.key]} label={label} disabled={c.locked}>
                  <option value="">
                    {t("settings:system.keepChoice", { value: choiceLabel(c, c.value) })}
                  </option>
                  {c.choices.map((choice) => (
                    <option key={choice} value={choice}>
                      {choiceLabel(c, choice)}
                    </option>
                  ))}
                </SelectField>
              ) : (
                <Input
                  meta={save.fields[c.key]}
                  label={label}
                  autoComplete="off"
                  // Mail routing settings are a super admin's (docs/rules.md); a disabled field is not sent.
                  // The audit retention stays open: an admin may lengthen it, the field says why not shorten.
                  disabled={c.locked}
                  description={c.restriction ? t(`settings:system.restriction.${c.restriction}`) : undefined}
                  placeholder={
                    c.secret
                      ? c.hint
                        ? t("settings:system.secretPlaceholder", { hint: c.hint })
                        : t("settings:system.source.unset")
                      : (c.value ?? "")
                  }
                />
              )}
              <p className="text-xs text-muted-foreground" data-testid={`source-${c.key}`}>
                {c.secret
                  ? c.hint
                    ? t("settings:system.secretSet", { hint: c.hint })
                    : t("settings:system.secretUnset")
                  : ""}
                {sourceLabel[c.source]}
                {c.updatedAt ? t("settings:system.changedAt", { date: formatDateTime(c.updatedAt) }) : ""}.{" "}
                {configHelp(t, c.key)}
              </p>
              {c.source === "database" && !c.locked ? (
                <div>
                  <button
                    type="submit"
                    // A reset of a super admin's setting goes with this form, so it carries the re-authentication below.
                    {...(superAdminRuleOf(c.key)
                      ? { name: "reset", value: c.key }
                      : { form: `reset-${c.key}` })}
                    className={cn(linkVariants(), "text-xs")}
                    aria-label={t("settings:system.resetLabel", { label })}
                  >
                    {t("settings:system.reset")}
                  </button>
                </div>
              ) : null}
            </div>
          );
        })}
        {/* Only a super admin (whom nothing restricts) makes the changes that ask for it. */}
        {config.some((c) => superAdminRuleOf(c.key) && !c.restriction) ? (
          <ReauthFields
            reauth={reauth}
            fields={save.fields}
            passwordLabel={t("settings:system.routingPassword")}
            description={t("settings:system.routingPasswordHelp")}
          />
        ) : null}
        {save.errors}
        <div>
          <Button pending={save.pending}>{t("settings:system.save")}</Button>
        </div>
      </save.fetcher.Form>
      {config
        .filter((c) => !superAdminRuleOf(c.key))
        .map((c) => (
          <reset.fetcher.Form key={c.key} id={`reset-${c.key}`} method="post" hidden>
            <input type="hidden" name="intent" value="system" />
            <input type="hidden" name="reset" value={c.key} />
          </reset.fetcher.Form>
        ))}
    </>
  );
}
