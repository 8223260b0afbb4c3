import { changePasswordSchema } from "../../auth/account-schemas";
import { PasswordField } from "../forms/fields";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { useSettingsForm } from "./use-settings-form";

export function PasswordSection() {
  const s = useSettingsForm("password", changePasswordSchema);
  return (
    <Card title="Password">
      <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
        <input type="hidden" name="intent" value="password" />
        <PasswordField
          meta={s.fields.currentPassword}
          label="Current password"
          autoComplete="current-password"
        />
        <PasswordField meta={s.fields.newPassword} label="New password" autoComplete="new-password" />
        <PasswordField meta={s.fields.confirm} label="Repeat the new password" autoComplete="new-password" />
        {s.errors}
        {s.status}
        <div>
          <Button pending={s.pending}>Change password</Button>
        </div>
      </s.fetcher.Form>
    </Card>
  );
}
