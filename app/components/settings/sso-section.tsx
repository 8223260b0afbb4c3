import { Link } from "react-router";
import { createProviderSchema, deleteProviderSchema, updateProviderSchema } from "../../auth/sso-schema";
import { PasswordField, SelectField, TextField } from "../forms/fields";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { useSettingsForm } from "./use-settings-form";

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

/** The System tab's way to the providers page (shown to super admins). */
export function SsoLinkCard() {
  return (
    <Card title="Single sign-on">
      <p className="text-sm">
        Let people sign in through your identity provider (OpenID Connect).{" "}
        <Link to="/dashboard/settings/sso" className="text-indigo-700 underline dark:text-indigo-300">
          Configure sign-in providers
        </Link>
      </p>
    </Card>
  );
}

export function SsoSection({
  providers,
  roles,
  callbackBase,
}: {
  providers: SsoProvider[];
  roles: Role[];
  callbackBase: string;
}) {
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Register each provider with the redirect URI{" "}
        <code className="break-all">{`${callbackBase}/auth/oidc/<identifier>/callback`}</code>. People sign in
        with a provider only when it confirms their email address and its domain is listed; an existing
        account with that address is linked, otherwise a new one is created with the role chosen here.
      </p>
      {providers.map((p) => (
        <Card key={`${p.id}:${p.slug}:${p.name}`} title={p.name}>
          <ProviderForm provider={p} roles={roles} />
          <DeleteProvider provider={p} />
        </Card>
      ))}
      <Card title="Add a sign-in provider">
        <ProviderForm roles={roles} />
      </Card>
    </div>
  );
}

function ProviderForm({ provider, roles }: { provider?: SsoProvider; roles: Role[] }) {
  const intent = provider ? "update-provider" : "create-provider";
  const s = useSettingsForm(intent, provider ? updateProviderSchema : createProviderSchema, {
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
  } as never);
  const f = s.fields as Record<string, (typeof s.fields)[keyof typeof s.fields]>;
  const passwordBox = f.passwordAllowed!;
  return (
    <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value={intent} />
      {provider ? <input type="hidden" name="id" value={provider.id} /> : null}
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField meta={f.name!} label="Button name" description='Shown as "Sign in with …".' />
        <TextField meta={f.slug!} label="Identifier" description="Part of the address, e.g. corp." />
      </div>
      <TextField meta={f.issuer!} label="Issuer URL" type="url" autoComplete="off" />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField meta={f.clientId!} label="Client ID" autoComplete="off" />
        <PasswordField
          meta={f.clientSecret!}
          label="Client secret"
          autoComplete="new-password"
          description={provider?.hasSecret ? "Stored. Leave blank to keep it." : undefined}
        />
      </div>
      <TextField
        meta={f.domains!}
        label="Allowed email domains"
        description="Separated by commas, e.g. example.com, example.org."
      />
      <SelectField meta={f.roleId!} label="Role for new accounts">
        <option value="">Choose a role</option>
        {roles.map((r) => (
          <option key={r.id} value={r.id}>
            {r.label}
          </option>
        ))}
      </SelectField>
      <label className="inline-flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name={passwordBox.name}
          id={passwordBox.id}
          defaultChecked={passwordBox.initialValue === "on"}
          className="size-4 accent-indigo-600"
        />
        Password sign-in stays allowed for these domains
      </label>
      {s.errors}
      {s.status}
      <div>
        <Button pending={s.pending}>{provider ? "Save provider" : "Add provider"}</Button>
      </div>
    </s.fetcher.Form>
  );
}

function DeleteProvider({ provider }: { provider: SsoProvider }) {
  const s = useSettingsForm("delete-provider", deleteProviderSchema, { id: `sso-delete-${provider.id}` });
  return (
    <s.fetcher.Form method="post" className="mt-3 flex flex-col gap-2" {...s.formProps}>
      <input type="hidden" name="intent" value="delete-provider" />
      <input type="hidden" name="id" value={provider.id} />
      {s.errors}
      <div>
        <Button variant="danger" pending={s.pending}>
          Remove {provider.name}
        </Button>
      </div>
    </s.fetcher.Form>
  );
}
