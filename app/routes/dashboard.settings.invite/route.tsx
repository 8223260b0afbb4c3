import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { inviteData, runInviteIntent } from "../../settings/workspace-settings.server";
import type { Route } from "./+types/route";
import { InviteSection } from "./invite-section";

export async function loader(args: Route.LoaderArgs) {
  return inviteData(await requirePermission(args, "user.write"));
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runInviteIntent(args);

export default function InviteSettings({ loaderData }: Route.ComponentProps) {
  return <InviteSection roles={loaderData.roles} languages={loaderData.languages} />;
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsInvite");
