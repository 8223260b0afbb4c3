import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { useTranslation } from "../../i18n/use-translation";
import { accessRequestsPageData, runAccessRequestIntent } from "../../users/access-request-page.server";
import type { Route } from "./+types/route";
import { AskForRole } from "./ask-for-role";
import { RequestList } from "./request-list";

// Access requests: ask for a requestable role for some hours; decide the requests one may.

export async function loader(args: Route.LoaderArgs) {
  return accessRequestsPageData(await requirePermission(args, "dashboard.access"));
}

export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runAccessRequestIntent(args);

export default function AccessRequests({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { requests, requestable, teams, me } = loaderData;
  const waiting = requests.filter((r) => r.mayDecide);
  const mine = requests.filter((r) => r.user.id === me);
  const others = requests.filter((r) => r.user.id !== me && !r.mayDecide);
  return (
    <div className="flex min-w-0 flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("access:requests.title")}</h1>
      {waiting.length ? <RequestList title={t("access:requests.waiting")} requests={waiting} decide /> : null}
      <AskForRole roles={requestable} teams={teams} />
      <RequestList title={t("access:requests.mine")} requests={mine} empty={t("access:requests.noneMine")} />
      {others.length ? <RequestList title={t("access:requests.decided")} requests={others} /> : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "accessRequests");
