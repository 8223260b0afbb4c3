import { useFetcher } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { createProviderSchema, deleteProviderSchema, updateProviderSchema } from "../../auth/sso-schema";
import { PasswordField, SelectField, TextField } from "../../components/forms/fields";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";
import { useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

// Single sign-on providers (super admins only): one form per provider and one to add another.
// The client secret is write-only: the page only knows whether one is stored.

export type SsoProvider = {
  id: string;
  slug: string;
  name: string;
  issuer: string;
  clientId: string;
  domains: string[];
  roleId: string | null;
  passwordAllowed: boolean;
  hasSecret: boolean;
};
type Role = { id: string; name: string; label: string };

export function SsoSection({
  providers,
  roles,
  callbackBase,
}: {
  providers: SsoProvider[];
  roles: Role[];
  callbackBase: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted-foreground">
        {/* The URI stays out of the translation: its <identifier> would read as markup. */}
        {t("settings:sso.redirectUri")}{" "}
        <code className="break-all">{`${callbackBase}/auth/oidc/<identifier>/callback`}</code>.{" "}
        {t("settings:sso.intro")}
      </p>
      {providers.map((p) => (
        <Card key={`${p.id}:${p.slug}:${p.name}`} title={p.name}>
          <ProviderForm provider={p} roles={roles} />
          <DeleteProvider provider={p} />
        </Card>
      ))}
      <Card title={t("settings:sso.addTitle")}>
        <ProviderForm roles={roles} />
      </Card>
    </div>
  );
}

function ProviderForm({ provider, roles }: { provider?: SsoProvider; roles: Role[] }) {
  const { t } = useTranslation();
  const intent = provider ? "update-provider" : "create-provider";
  const s = useSettingsForm(intent, provider ? updateProviderSchema : createProviderSchema, {
    fetcher: useFetcher<typeof action>(),
    id: provider ? `sso-${provider.id}` : "sso-new",
    defaultValue: provider
      ? {
          id: provider.id,
          name: provider.name,
          slug: provider.slug,
          issuer: provider.issuer,
          clientId: provider.clientId,
          domains: provider.domains.join(", "),
          roleId: provider.roleId ?? "",
          passwordAllowed: provider.passwordAllowed ? "on" : undefined,
        }
      : { roleId: roles.find((r) => r.name === "user")?.id ?? "", passwordAllowed: "on" },
  });
  const f = s.fields as Record<string, (typeof s.fields)[keyof typeof s.fields]>;
  const passwordBox = f.passwordAllowed!;
  return (
    <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value={intent} />
      {provider ? <input type="hidden" name="id" value={provider.id} /> : null}
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          meta={f.name!}
          label={t("settings:sso.buttonName")}
          description={t("settings:sso.buttonNameHint")}
        />
        <TextField meta={f.slug!} label={t("settings:sso.slug")} description={t("settings:sso.slugHint")} />
      </div>
      <TextField meta={f.issuer!} label={t("settings:sso.issuer")} type="url" autoComplete="off" />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField meta={f.clientId!} label={t("settings:sso.clientId")} autoComplete="off" />
        <PasswordField
          meta={f.clientSecret!}
          label={t("settings:sso.clientSecret")}
          autoComplete="new-password"
          description={provider?.hasSecret ? t("settings:sso.secretStored") : undefined}
        />
      </div>
      <TextField
        meta={f.domains!}
        label={t("settings:sso.domains")}
        description={t("settings:sso.domainsHint")}
      />
      <SelectField meta={f.roleId!} label={t("settings:sso.role")}>
        <option value="">{t("settings:sso.chooseRole")}</option>
        {roles.map((r) => (
          <option key={r.id} value={r.id}>
            {roleLabel(t, r)}
          </option>
        ))}
      </SelectField>
      <label className="inline-flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name={passwordBox.name}
          id={passwordBox.id}
          defaultChecked={passwordBox.initialValue === "on"}
          className="size-4 accent-primary"
        />
        {t("settings:sso.passwordAllowed")}
      </label>
      {s.errors}
      {s.status}
      <div>
        <Button pending={s.pending}>{provider ? t("settings:sso.save") : t("settings:sso.add")}</Button>
      </div>
    </s.fetcher.Form>
  );
}

function DeleteProvider({ provider }: { provider: SsoProvider }) {
  const { t } = useTranslation();
  const s = useSettingsForm("delete-provider", deleteProviderSchema, {
    fetcher: useFetcher<typeof action>(),
    id: `sso-delete-${provider.id}`,
  });
  return (
    <s.fetcher.Form method="post" className="mt-3 flex flex-col gap-2" {...s.formProps}>
      <input type="hidden" name="intent" value="delete-provider" />
      <input type="hidden" name="id" value={provider.id} />
      {s.errors}
      <div>
        <Button variant="destructive" pending={s.pending}>
          {t("settings:sso.remove", { name: provider.name })}
        </Button>
      </div>
    </s.fetcher.Form>
  );
}
