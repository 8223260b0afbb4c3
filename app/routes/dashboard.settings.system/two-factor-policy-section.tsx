import { useFetcher } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { twoFactorRolesSchema } from "../../auth/two-factor-schemas";
import { CheckboxGroupField } from "../../components/forms/fields";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { useTranslation } from "../../i18n/use-translation";
import { useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

type TwoFactorPolicy = { roles: { id: string; name: string; label: string }[]; required: string[] };

/** Super admins: the roles whose holders must set up two-factor before anything else. */
export function TwoFactorPolicySection({ policy }: { policy: TwoFactorPolicy }) {
  const { t } = useTranslation();
  const s = useSettingsForm("two-factor-roles", twoFactorRolesSchema, {
    fetcher: useFetcher<typeof action>(),
    defaultValue: { roles: policy.required },
  });
  return (
    <Card title={t("settings:twoFactor.policyTitle")}>
      <ViewingAsLock lock={{ page: "/dashboard/settings/system", intents: ["two-factor-roles"] }}>
        <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
          <input type="hidden" name="intent" value="two-factor-roles" />
          <CheckboxGroupField
            meta={s.fields.roles}
            legend={t("settings:twoFactor.policyLegend")}
            description={t("settings:twoFactor.policyDescription")}
            options={policy.roles.map((r) => ({ value: r.id, label: roleLabel(t, r) }))}
          />
          {s.errors}
          {s.status}
          <div>
            <Button pending={s.pending}>{t("settings:save")}</Button>
          </div>
        </s.fetcher.Form>
      </ViewingAsLock>
    </Card>
  );
}
