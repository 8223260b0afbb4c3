import { redirect } from "react-router";
import { settingsMenu, settingsPath } from "../../access/settings-pages";
import { requirePermission } from "../../auth/guard.server";
import type { Route } from "./+types/route";

// /dashboard/settings opens its first page, or the one the phones' menu chose (?section=). An old
// `#tab` address keeps its fragment through the redirect, and the layout opens the tab's page.
export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "dashboard.access");
  const menu = settingsMenu(user);
  const asked = new URL(args.request.url).searchParams.get("section");
  const section = [...menu.account, ...menu.workspace].find((s) => s === asked) ?? "profile";
  throw redirect(settingsPath(section));
}

// A page (not a resource route), so a link to /dashboard/settings navigates in the app; the loader
// always redirects before anything renders.
export default function SettingsIndex() {
  return null;
}
