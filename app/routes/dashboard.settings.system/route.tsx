import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { runSystemIntent, systemData } from "../../settings/workspace-settings.server";
import type { Route } from "./+types/route";
import { AuditIntegritySection } from "./audit-integrity-section";
import { MailLog } from "./mail-log";
import { SystemSection } from "./system-section";
import { TestEmailSection } from "./test-email-section";
import { TwoFactorPolicySection } from "./two-factor-policy-section";

export async function loader(args: Route.LoaderArgs) {
  return systemData(await requirePermission(args, "settings.manage"));
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runSystemIntent(args);

export default function SystemSettings({ loaderData }: Route.ComponentProps) {
  const { config, reauth, email, mailLog, outboxKeepsLinks, integrity, twoFactorPolicy } = loaderData;
  return (
    <>
      <SystemSection config={config} reauth={reauth} />
      {twoFactorPolicy ? <TwoFactorPolicySection policy={twoFactorPolicy} /> : null}
      <TestEmailSection defaultTo={email} />
      <MailLog entries={mailLog} outboxKeepsLinks={outboxKeepsLinks} />
      <AuditIntegritySection integrity={integrity} />
    </>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsSystem");
