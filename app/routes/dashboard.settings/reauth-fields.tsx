import type { FieldMetadata } from "@conform-to/react";
import { PasswordField, TextField } from "../../components/forms/fields";
import { useTranslation } from "../../i18n/use-translation";

/** What the account re-authenticates with (reauthMethods, app/auth/account.server.ts). */
export type ReauthMethods = { password: boolean; code: boolean };

// biome-ignore lint/suspicious/noExplicitAny: conform's field metadata, as in forms/fields.tsx
type AnyField = FieldMetadata<any, any, string[]>;

/**
 * The re-authentication fields of a form (assertReauthenticated): the password where the account
 * has one, a code from the authenticator where it has two-factor (either is enough), and where it
 * has neither (single sign-on only) a note that a recent sign-in stands in for them.
 */
export function ReauthFields({
  reauth,
  fields,
  passwordLabel,
  description,
}: {
  reauth: ReauthMethods;
  fields: { currentPassword: AnyField; reauthCode: AnyField };
  passwordLabel?: string;
  description?: string;
}) {
  const { t } = useTranslation();
  if (!reauth.password && !reauth.code) return <p className="text-sm">{t("settings:reauthFreshSignIn")}</p>;
  return (
    <>
      {reauth.password ? (
        <PasswordField
          meta={fields.currentPassword}
          label={passwordLabel ?? t("settings:currentPassword")}
          autoComplete="current-password"
          description={description}
        />
      ) : null}
      {reauth.code ? (
        <TextField
          meta={fields.reauthCode}
          label={reauth.password ? t("settings:reauthCode") : t("settings:reauthCodeOnly")}
          description={t("settings:reauthCodeHelp")}
          autoComplete="one-time-code"
          maxLength={20}
        />
      ) : null}
      {!reauth.password && description ? <p className="text-sm">{description}</p> : null}
    </>
  );
}
