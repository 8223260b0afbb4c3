import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { runWebhooksIntent, webhooksData } from "../../settings/workspace-settings.server";
import type { Route } from "./+types/route";
import { WebhooksSection } from "./webhooks-section";

export async function loader(args: Route.LoaderArgs) {
  return webhooksData(await requirePermission(args, "settings.manage"));
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runWebhooksIntent(args);

export default function WebhooksSettings({ loaderData }: Route.ComponentProps) {
  return <WebhooksSection endpoints={loaderData.endpoints} events={loaderData.events} />;
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsWebhooks");
