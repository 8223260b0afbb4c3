import { Trans } from "react-i18next";
import { Link, useFetcher } from "react-router";
import { anyPermissionLabel } from "../../access/permission-labels";
import {
  API_TOKEN_DEFAULT_DAYS,
  API_TOKEN_EXPIRY_CHOICES,
  createApiTokenSchema,
} from "../../auth/api-token-schemas";
import { CheckboxGroupField, SelectField, TextField } from "../../components/forms/fields";
import { SecretReveal } from "../../components/secret-reveal";
import { type ApiTokenItem, ApiTokenRow } from "../../components/settings/api-token-row";
import { Button } from "../../components/ui/button";
import { Card, EmptyState } from "../../components/ui/card";
import { linkVariants } from "../../components/ui/link";
import { ViewingAsLock } from "../../components/viewing-as-lock";
import { say } from "../../i18n/message";
import { useTranslation } from "../../i18n/use-translation";
import { ReauthFields, type ReauthMethods } from "../dashboard.settings/reauth-fields";
import { SectionStatus, useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

type Permission = { key: string; label: string };

/** Settings' personal API tokens: create (shown once), list, revoke. */
export function ApiTokensSection({
  tokens,
  permissions,
  reauth,
}: {
  tokens: ApiTokenItem[];
  permissions: Permission[];
  reauth: ReauthMethods;
}) {
  const { t } = useTranslation();
  const labels = new Map(permissions.map((p) => [p.key, anyPermissionLabel(t, p.key)]));
  const held = new Set(permissions.map((p) => p.key));
  const s = useSettingsForm("create-api-token", createApiTokenSchema, {
    fetcher: useFetcher<typeof action>(),
    defaultValue: {
      expiresInDays: String(API_TOKEN_DEFAULT_DAYS),
      permissions: held.has("dashboard.access") ? ["dashboard.access"] : [],
    },
  });
  const created = s.fetcher.data;
  const secret = created?.ok && created.intent === "create-api-token" ? created.secret : undefined;
  const revoke = useFetcher<typeof action>();
  return (
    <>
      <Card title={t("settings:apiTokens.createTitle")}>
        <ViewingAsLock lock={{ page: "/dashboard/settings/api-tokens", intents: ["create-api-token"] }}>
          <p className="mb-3 text-sm text-muted-foreground">
            <Trans
              i18nKey="settings:apiTokens.intro"
              components={{ api: <code />, header: <code>Authorization: Bearer &lt;token&gt;</code> }}
            />
          </p>
          <p className="mb-3 text-sm">
            <Link to="/dashboard/api-reference" className={linkVariants()}>
              {t("settings:apiReference.link")}
            </Link>
          </p>
          <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
            <input type="hidden" name="intent" value="create-api-token" />
            <TextField meta={s.fields.name} label={t("settings:apiTokens.name")} autoComplete="off" />
            <SelectField meta={s.fields.expiresInDays} label={t("settings:apiTokens.expires")}>
              {API_TOKEN_EXPIRY_CHOICES.map((days) => (
                <option key={days} value={days}>
                  {days === 365
                    ? t("settings:apiTokens.oneYear")
                    : t("settings:apiTokens.days", { count: days })}
                </option>
              ))}
            </SelectField>
            <CheckboxGroupField
              meta={s.fields.permissions}
              legend={t("settings:apiTokens.permissions")}
              options={permissions.map((p) => ({ value: p.key, label: labels.get(p.key) ?? p.label }))}
              description={t("settings:apiTokens.permissionsHint")}
            />
            <ReauthFields reauth={reauth} fields={s.fields} />
            {s.errors}
            {s.status}
            <div>
              <Button pending={s.pending}>{t("settings:apiTokens.create")}</Button>
            </div>
          </s.fetcher.Form>
          <SecretReveal
            secret={secret}
            title={t("settings:apiTokens.revealTitle")}
            note={t("settings:apiTokens.newToken")}
            testId="new-api-token"
          />
        </ViewingAsLock>
      </Card>
      <Card title={t("settings:apiTokens.listTitle")}>
        <ViewingAsLock lock={{ page: "/dashboard/settings/api-tokens", intents: ["revoke-api-token"] }}>
          {tokens.length === 0 ? (
            <EmptyState>{t("settings:apiTokens.none")}</EmptyState>
          ) : (
            <ul className="divide-y" data-testid="api-tokens">
              {tokens.map((token) => (
                <ApiTokenRow key={token.id} token={token} labels={labels}>
                  <revoke.Form method="post">
                    <input type="hidden" name="intent" value="revoke-api-token" />
                    <input type="hidden" name="apiToken" value={token.id} />
                    <Button
                      variant="secondary"
                      pending={revoke.state !== "idle" && revoke.formData?.get("apiToken") === token.id}
                      aria-label={t("settings:apiTokens.revokeLabel", { name: token.name })}
                    >
                      {t("settings:apiTokens.revoke")}
                    </Button>
                  </revoke.Form>
                </ApiTokenRow>
              ))}
            </ul>
          )}
          <SectionStatus answer={revoke.data?.intent === "revoke-api-token" ? revoke.data : undefined} />
          {revoke.data && !revoke.data.ok ? (
            <p role="alert" className="text-sm text-destructive">
              {revoke.data.formError ?? say(t, "apiTokens.revokeFailed")}
            </p>
          ) : null}
        </ViewingAsLock>
      </Card>
    </>
  );
}
