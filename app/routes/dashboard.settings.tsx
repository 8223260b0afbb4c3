import { useRouteLoaderData, useSearchParams } from "react-router";
import { afterPasswordChange, requirePermission } from "../auth/guard.server";
import { passkeyAvailability } from "../auth/passkeys.server";
import { pageTitle } from "../components/page-title";
import { ApiTokensSection } from "../components/settings/api-tokens-section";
import { AuditIntegritySection } from "../components/settings/audit-integrity-section";
import { DirectoryLinkCard } from "../components/settings/directory-section";
import { InviteSection } from "../components/settings/invite-section";
import { KnownDevicesSection } from "../components/settings/known-devices-section";
import { MailLog } from "../components/settings/mail-log";
import { PasskeysSection } from "../components/settings/passkeys-section";
import { PasswordSection } from "../components/settings/password-section";
import { ProfileSection } from "../components/settings/profile-section";
import { SessionsSection } from "../components/settings/sessions-section";
import { type SettingsTab, SettingsTabs } from "../components/settings/settings-tabs";
import { SsoLinkCard } from "../components/settings/sso-section";
import { SystemSection } from "../components/settings/system-section";
import { TestEmailSection } from "../components/settings/test-email-section";
import { TwoFactorPolicySection, TwoFactorSection } from "../components/settings/two-factor-section";
import { WebhooksSection } from "../components/settings/webhooks-section";
import { passRetryAfter } from "../http/responses";
import { getLanguage, getT } from "../i18n/i18n.server";
import { useTranslation } from "../i18n/use-translation";
import type { loader as rootLoader } from "../root";
import { runSettingsIntent, settingsPageData } from "../settings/settings-page.server";
import type { Route } from "./+types/dashboard.settings";

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const url = new URL(args.request.url);
  const page = await settingsPageData(
    user,
    { language: getLanguage(args.context), t: getT(args.context) },
    args.request,
  );
  return {
    ...page,
    passkeyAvailability: passkeyAvailability(args.request),
    // Never set while someone views as this account (impersonation-state.server.ts).
    mustChangePassword: user.mustChangePassword,
    // Where enrolment the gate demanded goes on to, checked as a forced password change's is.
    afterEnrolment: url.searchParams.has("twoFactor")
      ? afterPasswordChange(url.searchParams.get("redirectTo"))
      : null,
  };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runSettingsIntent(args);

export default function Settings({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const { profile, languages, sessions, system, invite, twoFactor, sso, passkeys, apiTokens, webhooks } =
    loaderData;
  const { directory } = loaderData;
  const { passkeyAvailability, mustChangePassword } = loaderData;
  const tabs: SettingsTab[] = [
    {
      value: "profile",
      label: t("settings:tabs.profile"),
      content: <ProfileSection profile={profile} languages={languages} />,
    },
    {
      value: "security",
      label: t("settings:tabs.security"),
      content: (
        <>
          <PasswordSection forced={mustChangePassword} redirectTo={params.get("redirectTo")} />
          <PasskeysSection passkeys={passkeys} availability={passkeyAvailability} reauth={twoFactor.reauth} />
          <SessionsSection sessions={sessions} />
          <KnownDevicesSection {...loaderData.devices} />
        </>
      ),
    },
    {
      value: "api-tokens",
      label: t("settings:tabs.apiTokens"),
      content: <ApiTokensSection {...apiTokens} reauth={twoFactor.reauth} />,
    },
  ];
  const twoFactorTab: SettingsTab = {
    value: "two-factor",
    label: t("settings:tabs.twoFactor"),
    content: (
      <>
        <TwoFactorSection
          twoFactor={twoFactor}
          appName={root?.appName ?? ""}
          email={profile.email}
          continueTo={loaderData.afterEnrolment}
        />
        {twoFactor.policy ? <TwoFactorPolicySection policy={twoFactor.policy} /> : null}
      </>
    ),
  };
  // When a role requires it, enrolment is the one thing open: its tab comes first.
  if (twoFactor.due) tabs.unshift(twoFactorTab);
  else tabs.push(twoFactorTab);
  if (invite)
    tabs.push({
      value: "invite",
      label: t("settings:tabs.invite"),
      content: <InviteSection roles={invite.roles} />,
    });
  if (system)
    tabs.push({
      value: "system",
      label: t("settings:tabs.system"),
      content: (
        <>
          <SystemSection config={system.config} reauth={twoFactor.reauth} />
          {sso ? <SsoLinkCard /> : null}
          {directory ? <DirectoryLinkCard /> : null}
          <TestEmailSection defaultTo={profile.email} />
          <MailLog entries={system.mailLog} outboxKeepsLinks={system.outboxKeepsLinks} />
          <AuditIntegritySection integrity={system.integrity} />
        </>
      ),
    });
  if (webhooks)
    tabs.push({
      value: "webhooks",
      label: t("settings:tabs.webhooks"),
      content: <WebhooksSection endpoints={webhooks.endpoints} events={webhooks.events} />,
    });
  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <h1 className="text-2xl font-semibold">{t("settings:title")}</h1>
      {/* A password the gate demands: its tab is open first (two-factor enrolment puts its own first). */}
      <SettingsTabs tabs={tabs} initial={mustChangePassword ? "security" : undefined} />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settings");
