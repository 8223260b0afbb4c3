import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { passRetryAfter } from "../../http/responses";
import { profileData, runProfileIntent } from "../../settings/account-settings.server";
import type { Route } from "./+types/route";
import { OwnAccess } from "./own-access";
import { ProfileSection } from "./profile-section";

export async function loader(args: Route.LoaderArgs) {
  return profileData(await requirePermission(args, "dashboard.access"));
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runProfileIntent(args);

export default function ProfileSettings({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <ProfileSection profile={loaderData.profile} languages={loaderData.languages} />
      <OwnAccess grants={loaderData.access} />
    </>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsProfile");
