import { useFetcher } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { inviteSchema } from "../../auth/account-schemas";
import { CheckboxGroupField, SelectField, TextField } from "../../components/forms/fields";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { UnsentInvitation } from "../../components/users/invite-link";
import { languageName } from "../../i18n/language-name";
import { useTranslation } from "../../i18n/use-translation";
import { useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

/** Shown to holders of user.write; the roles offered are only those they may grant. */
export function InviteSection({
  roles,
  languages,
}: {
  roles: { id: string; name: string; label: string }[];
  languages: string[];
}) {
  const { t } = useTranslation();
  const plain = roles.filter((r) => r.name === "user").map((r) => r.id);
  const s = useSettingsForm("invite", inviteSchema, {
    fetcher: useFetcher<typeof action>(),
    defaultValue: { roles: plain },
  });
  const answer = s.fetcher.data;
  const sent = answer?.intent === "invite" && answer.ok ? answer : undefined;
  const unsent = sent?.unsent ?? null;
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
        <SelectField
          meta={s.fields.language}
          label={t("settings:invite.language")}
          description={t("settings:invite.languageHint")}
        >
          <option value="">{t("settings:invite.languageMine")}</option>
          {languages.map((l) => (
            <option key={l} value={l}>
              {languageName(l)}
            </option>
          ))}
        </SelectField>
        {s.errors}
        {unsent ? null : s.status}
        <div>
          <Button pending={s.pending}>{t("settings:invite.send")}</Button>
        </div>
      </s.fetcher.Form>
      {unsent && sent?.message ? (
        <UnsentInvitation key={unsent.id} message={sent.message} invitation={unsent} />
      ) : null}
    </Card>
  );
}
