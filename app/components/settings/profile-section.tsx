import { changeEmailSchema, profileSchema } from "../../auth/account-schemas";
import { PasswordField, TextField } from "../forms/fields";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import {
  SectionStatus,
  type SettingsFetcher,
  useSettingsFetcher,
  useSettingsForm,
} from "./use-settings-form";

export function ProfileSection({ profile }: { profile: { name: string; email: string } }) {
  const nameFetcher = useSettingsFetcher();
  return (
    <Card title="Profile">
      {/* Keyed by the saved name: after a save the form starts again from what is stored, while
          the answer (and the focus on it) stays with the section. */}
      <NameForm key={profile.name} name={profile.name} fetcher={nameFetcher} />
      <SectionStatus answer={nameFetcher.data?.intent === "profile" ? nameFetcher.data : undefined} />
      <EmailForm email={profile.email} />
    </Card>
  );
}

function NameForm({ name, fetcher }: { name: string; fetcher: SettingsFetcher }) {
  const s = useSettingsForm("profile", profileSchema, { defaultValue: { name }, fetcher });
  return (
    <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value="profile" />
      <TextField meta={s.fields.name} label="Name" autoComplete="name" />
      {s.errors}
      <div>
        <Button pending={s.pending}>Save name</Button>
      </div>
    </s.fetcher.Form>
  );
}

function EmailForm({ email }: { email: string }) {
  const s = useSettingsForm("email", changeEmailSchema);
  return (
    <s.fetcher.Form method="post" className="mt-6 flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value="email" />
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Your email address is <strong>{email}</strong>. A new address takes effect once you follow the link we
        send to it.
      </p>
      <TextField meta={s.fields.email} label="New email address" type="email" autoComplete="email" />
      <PasswordField
        meta={s.fields.currentPassword}
        label="Current password"
        autoComplete="current-password"
      />
      {s.errors}
      {s.status}
      <div>
        <Button pending={s.pending} variant="secondary">
          Change email
        </Button>
      </div>
    </s.fetcher.Form>
  );
}
