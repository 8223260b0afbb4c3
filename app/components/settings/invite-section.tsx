import { roleLabel } from "../../access/role-labels";
import { inviteSchema } from "../../auth/account-schemas";
import { useTranslation } from "../../i18n/use-translation";
import { CheckboxGroupField, TextField } from "../forms/fields";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { useSettingsForm } from "./use-settings-form";

/** Shown to holders of user.write; the roles offered are only those they may grant. */
export function InviteSection({ roles }: { roles: { id: string; name: string; label: string }[] }) {
  const { t } = useTranslation();
  const plain = roles.filter((r) => r.name === "user").map((r) => r.id);
  const s = useSettingsForm("invite", inviteSchema, {
    // Conform's default-value type has no room for an array field; the value is what it expects.
    defaultValue: { roles: plain } as never,
  });
  return (
    <Card title={t("settings:invite.title")}>
      <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
        <input type="hidden" name="intent" value="invite" />
        <TextField meta={s.fields.email} label={t("settings:invite.email")} type="email" autoComplete="off" />
        <CheckboxGroupField
          meta={s.fields.roles}
          legend={t("settings:invite.roles")}
          options={roles.map((r) => ({ value: r.id, label: roleLabel(t, r) }))}
        />
        {s.errors}
        {s.status}
        <div>
          <Button pending={s.pending}>{t("settings:invite.send")}</Button>
        </div>
      </s.fetcher.Form>
    </Card>
  );
}
