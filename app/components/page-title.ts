import { isRouteErrorResponse, type MetaDescriptor } from "react-router";
import { APP_NAME } from "../config";

type MatchLike = { id: string; loaderData?: unknown } | undefined;
type RootLike = { appName?: unknown } | null | undefined;

/**
 * The app's name as the root loader read it (Settings may rename the app). When the root loader
 * did not run (the access gate refused in middleware), the fixed default.
 */
export function appNameOf(source: readonly MatchLike[] | RootLike): string {
  const root = Array.isArray(source)
    ? (source as readonly MatchLike[]).find((m) => m?.id === "root")?.loaderData
    : source;
  const name = (root as RootLike)?.appName;
  return typeof name === "string" && name.trim() ? name : APP_NAME;
}

/**
 * `<title>` "Users · App name" for a route's meta export:
 *   export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Users");
 * Pass the meta args' `matches` (or the root loader data); `page` may be empty for the app's name
 * alone.
 */
export function pageTitle(source: readonly MatchLike[] | RootLike, page?: string | null): MetaDescriptor[] {
  const app = appNameOf(source);
  return [{ title: page ? `${page} · ${app}` : app }];
}

/** The page name of an error a boundary shows: "No access", "Page not found" or a generic one. */
export function errorPageName(error: unknown): string {
  if (isRouteErrorResponse(error)) {
    if (error.status === 403) return "No access";
    if (error.status === 404) return "Page not found";
  }
  return "Something went wrong";
}
