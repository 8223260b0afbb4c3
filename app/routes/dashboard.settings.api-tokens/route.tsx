import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { apiTokensData, runApiTokensIntent } from "../../settings/account-settings.server";
import type { Route } from "./+types/route";
import { ApiTokensSection } from "./api-tokens-section";

export async function loader(args: Route.LoaderArgs) {
  return apiTokensData(await requirePermission(args, "dashboard.access"));
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runApiTokensIntent(args);

export default function ApiTokensSettings({ loaderData }: Route.ComponentProps) {
  return <ApiTokensSection {...loaderData} />;
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsApiTokens");
