import { Link } from "react-router";
import { requireSomewhere } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { linkVariants } from "../../components/ui/link";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { runSessionsIntent, sessionsPageData } from "../../users/sessions-page.server";
import type { Route } from "./+types/route";
import { EndEveryone } from "./end-everyone";
import { SessionFilters } from "./session-filters";
import { SessionTable } from "./session-table";

// Every active session of everyone in reach, for an incident or a lost laptop (decision 051).

export async function loader(args: Route.LoaderArgs) {
  const user = await requireSomewhere(args, "user.update");
  return sessionsPageData(user, new URL(args.request.url), getT(args.context));
}

export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runSessionsIntent(args);

export default function Sessions({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { sessions, next, filters, isSuperAdmin } = loaderData;
  return (
    <div className="flex min-w-0 flex-col gap-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold">{t("users:sessions.title")}</h1>
        {isSuperAdmin ? <EndEveryone /> : null}
      </div>
      <p className="max-w-prose text-muted-foreground">{t("users:sessions.intro")}</p>
      <SessionFilters filters={filters} />
      <SessionTable sessions={sessions} />
      {next ? (
        <Link
          to={`?${new URLSearchParams({ ...filters, after: next }).toString()}`}
          className={linkVariants()}
          rel="next"
        >
          {t("users:sessions.more")}
        </Link>
      ) : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "sessions");
