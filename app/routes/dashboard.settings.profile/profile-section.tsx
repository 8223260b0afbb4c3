import { Trans } from "react-i18next";
import { useFetcher } from "react-router";
import { changeEmailSchema, languageSchema, profileSchema } from "../../auth/account-schemas";
import { PasswordField, SelectField, TextField } from "../../components/forms/fields";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { languageName } from "../../i18n/language-name";
import { useTranslation } from "../../i18n/use-translation";
import {
  SectionStatus,
  type SettingsFetcher,
  useSettingsForm,
} from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

type Profile = { name: string; email: string; locale: string | null };

export function ProfileSection({ profile, languages }: { profile: Profile; languages: string[] }) {
  const { t } = useTranslation();
  const nameFetcher = useFetcher<typeof action>();
  const languageFetcher = useFetcher<typeof action>();
  return (
    <Card title={t("settings:profile.title")}>
      {/* Keyed by the saved name: after a save the form starts again from what is stored, while
          the answer (and the focus on it) stays with the section. */}
      <NameForm key={profile.name} name={profile.name} fetcher={nameFetcher} />
      <SectionStatus answer={nameFetcher.data?.intent === "profile" ? nameFetcher.data : undefined} />
      {/* The name stays open while viewing as someone; the language and the address are theirs. */}
      <ViewingAsLock
        lock={{ page: "/dashboard/settings/profile", intents: ["language", "email"] }}
        className="mt-6"
      >
        <LanguageForm
          key={profile.locale ?? ""}
          locale={profile.locale}
          languages={languages}
          fetcher={languageFetcher}
        />
        <SectionStatus
          answer={languageFetcher.data?.intent === "language" ? languageFetcher.data : undefined}
        />
        <EmailForm email={profile.email} />
      </ViewingAsLock>
    </Card>
  );
}

function NameForm({ name, fetcher }: { name: string; fetcher: SettingsFetcher<typeof action> }) {
  const { t } = useTranslation();
  const s = useSettingsForm("profile", profileSchema, { defaultValue: { name }, fetcher });
  return (
    <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value="profile" />
      <TextField meta={s.fields.name} label={t("settings:profile.name")} autoComplete="name" />
      {s.errors}
      <div>
        <Button pending={s.pending}>{t("settings:profile.saveName")}</Button>
      </div>
    </s.fetcher.Form>
  );
}

/**
 * The person's language: automatic follows the browser (Accept-Language). Saving reloads the
 * root loader, whose `language` then switches the page (app/i18n/use-sync-language.ts).
 */
function LanguageForm({
  locale,
  languages,
  fetcher,
}: {
  locale: string | null;
  languages: string[];
  fetcher: SettingsFetcher<typeof action>;
}) {
  const { t } = useTranslation();
  const s = useSettingsForm("language", languageSchema(languages), {
    id: "settings-language",
    defaultValue: { locale: locale ?? "" },
    fetcher,
  });
  return (
    <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value="language" />
      <SelectField meta={s.fields.locale} label={t("settings:profile.language.label")}>
        <option value="">{t("settings:profile.language.automatic")}</option>
        {languages.map((language) => (
          <option key={language} value={language} lang={language}>
            {languageName(language)}
          </option>
        ))}
      </SelectField>
      {s.errors}
      <div>
        <Button pending={s.pending}>{t("settings:profile.language.save")}</Button>
      </div>
    </s.fetcher.Form>
  );
}

function EmailForm({ email }: { email: string }) {
  const { t } = useTranslation();
  const s = useSettingsForm("email", changeEmailSchema, { fetcher: useFetcher<typeof action>() });
  return (
    <s.fetcher.Form method="post" className="mt-6 flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value="email" />
      <p className="text-sm text-muted-foreground">
        <Trans i18nKey="settings:profile.emailIntro" values={{ email }} components={{ strong: <strong /> }} />
      </p>
      <TextField
        meta={s.fields.email}
        label={t("settings:profile.newEmail")}
        type="email"
        autoComplete="email"
      />
      <PasswordField
        meta={s.fields.currentPassword}
        label={t("settings:currentPassword")}
        autoComplete="current-password"
      />
      {s.errors}
      {s.status}
      <div>
        <Button pending={s.pending} variant="secondary">
          {t("settings:profile.changeEmail")}
        </Button>
      </div>
    </s.fetcher.Form>
  );
}
