import { changePasswordSchema } from "../../auth/account-schemas";
import { useTranslation } from "../../i18n/use-translation";
import { PasswordField } from "../forms/fields";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { ViewingAsLock } from "../viewing-as-lock";
import { useSettingsForm } from "./use-settings-form";

export function PasswordSection() {
  const { t } = useTranslation();
  const s = useSettingsForm("password", changePasswordSchema);
  return (
    <Card title={t("settings:password.title")}>
      <ViewingAsLock lock={{ page: "/dashboard/settings", intents: ["password"] }}>
        <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
          <input type="hidden" name="intent" value="password" />
          <PasswordField
            meta={s.fields.currentPassword}
            label={t("settings:currentPassword")}
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
