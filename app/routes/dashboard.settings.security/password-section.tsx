import { useEffect } from "react";
import { useFetcher } from "react-router";
import { changePasswordSchema } from "../../auth/account-schemas";
import { PasswordField } from "../../components/forms/fields";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { useTranslation } from "../../i18n/use-translation";
import { useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

/**
 * `forced`: the account must replace a password an administrator set (the access gate sent the
 * person here). The form's first field takes focus, and `redirectTo` (where they were headed, as
 * the gate put it in the address) goes with the form; the server checks it before going there.
 */
export function PasswordSection({
  forced = false,
  redirectTo = null,
}: {
  forced?: boolean;
  redirectTo?: string | null;
}) {
  const { t } = useTranslation();
  const s = useSettingsForm("password", changePasswordSchema, {
    fetcher: useFetcher<typeof action>(),
  });
  const firstField = s.fields.currentPassword.id;
  useEffect(() => {
    if (forced) document.getElementById(firstField)?.focus();
  }, [forced, firstField]);
  return (
    <Card title={t("settings:password.title")}>
      <ViewingAsLock lock={{ page: "/dashboard/settings/security", intents: ["password"] }}>
        <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
          <input type="hidden" name="intent" value="password" />
          {forced && redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
          <PasswordField
            meta={s.fields.currentPassword}
            label={t("settings:currentPassword")}
            description={forced ? t("settings:password.temporaryHint") : undefined}
            autoComplete="current-password"
          />
          <PasswordField
            meta={s.fields.newPassword}
            label={t("settings:password.new")}
            autoComplete="new-password"
          />
          <PasswordField
            meta={s.fields.confirm}
            label={t("settings:password.repeat")}
            autoComplete="new-password"
          />
          {s.errors}
          {s.status}
          <div>
            <Button pending={s.pending}>{t("settings:password.change")}</Button>
          </div>
        </s.fetcher.Form>
      </ViewingAsLock>
    </Card>
  );
}
