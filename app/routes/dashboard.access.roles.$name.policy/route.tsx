import { Link } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { Card } from "../../components/ui/card";
import { linkVariants } from "../../components/ui/link";
import { NotFound } from "../../domain-errors";
import { pageRefusal } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { networkRulePageData, runNetworkRuleIntent } from "../../users/role-policy-page.server";
import type { Route } from "./+types/route";
import { NetworkRuleForm } from "./network-rule-form";
import { SessionLimitsForm } from "./session-limits-form";

// A role's sign-in policy: where it may be used from (decision 050; who a rule would have refused
// lately, then saving it) and how long its holders' sessions may last (decision 051).

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "roles.manage");
  try {
    return await networkRulePageData(user, args.params.name, args.context);
  } catch (error) {
    if (error instanceof NotFound) throw pageRefusal(getT(args.context), "access.roleGone", 404);
    throw error;
  }
}

export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runNetworkRuleIntent(args);

export default function RoleNetworks({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { role, editable, ip } = loaderData;
  const label = roleLabel(t, role);
  return (
    <div className="flex min-w-0 flex-col gap-6">
      <div>
        <Link to="/dashboard/access?tab=roles" className={linkVariants({ variant: "quiet" })}>
          {t("access:networks.back")}
        </Link>
        <h1 className="mt-2 text-2xl font-semibold">{t("access:policy.heading", { role: label })}</h1>
        <p className="mt-2 max-w-prose text-muted-foreground">
          {t("access:networks.intro", { role: label })}
        </p>
      </div>
      <Card title={t("access:networks.current")}>
        {role.allowedNetworks.length ? (
          <ul className="flex flex-wrap gap-2" data-testid="current-networks">
            {role.allowedNetworks.map((n) => (
              <li key={n}>
                <code className="rounded bg-muted px-2 py-1 text-sm">{n}</code>
              </li>
            ))}
          </ul>
        ) : (
          <p data-testid="current-networks">{t("access:networks.anywhere")}</p>
        )}
        <p className="mt-3 text-sm text-muted-foreground">{t("access:networks.youAreAt", { ip })}</p>
      </Card>
      {editable ? (
        <>
          <NetworkRuleForm role={role} />
          <SessionLimitsForm role={role} />
        </>
      ) : (
        <p className="text-muted-foreground">{t("access:networks.notEditable", { role: label })}</p>
      )}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "rolePolicy");
