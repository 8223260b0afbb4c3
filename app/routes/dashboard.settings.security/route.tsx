import { useRouteLoaderData, useSearchParams } from "react-router";
import { afterPasswordChange, requirePermission } from "../../auth/guard.server";
import { passkeyAvailability } from "../../auth/passkeys.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { getLanguage, getT } from "../../i18n/i18n.server";
import type { loader as rootLoader } from "../../root";
import { runSecurityIntent, securityData } from "../../settings/account-settings.server";
import type { Route } from "./+types/route";
import { KnownDevicesSection } from "./known-devices-section";
import { PasskeysSection } from "./passkeys-section";
import { PasswordSection } from "./password-section";
import { SessionsSection } from "./sessions-section";
import { TwoFactorSection } from "./two-factor-section";

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const url = new URL(args.request.url);
  const reader = { language: getLanguage(args.context), t: getT(args.context) };
  return {
    ...(await securityData(user, reader, args.request)),
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

export const action = (args: Route.ActionArgs) => runSecurityIntent(args);

export default function SecuritySettings({ loaderData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const { twoFactor, passkeys, sessions, devices, email, mustChangePassword } = loaderData;
  const twoFactorSection = (
    <div key="two-factor" id="two-factor" className="flex scroll-mt-20 flex-col gap-6">
      <TwoFactorSection
        twoFactor={twoFactor}
        appName={root?.appName ?? ""}
        email={email}
        continueTo={loaderData.afterEnrolment}
      />
    </div>
  );
  const passwordSection = (
    <PasswordSection key="password" forced={mustChangePassword} redirectTo={params.get("redirectTo")} />
  );
  // When a role requires it, enrolment is the one thing open: it comes first. Keyed, so the card
  // keeps its state (the recovery codes just shown) when enrolment ends and it moves back.
  const first = twoFactor.due ? [twoFactorSection, passwordSection] : [passwordSection, twoFactorSection];
  return (
    <>
      {first}
      <PasskeysSection
        passkeys={passkeys}
        availability={loaderData.passkeyAvailability}
        reauth={twoFactor.reauth}
      />
      <SessionsSection sessions={sessions} />
      <KnownDevicesSection {...devices} />
    </>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsSecurity");
