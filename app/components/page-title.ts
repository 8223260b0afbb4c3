import { isRouteErrorResponse, type MetaDescriptor } from "react-router";
import { APP_NAME } from "../config";
import { FALLBACK_LANGUAGE } from "../i18n/options";
import type englishTitles from "../locales/en/titles.json";

type MatchLike = { id: string; loaderData?: unknown } | undefined;
type RootLike = { appName?: unknown; language?: unknown } | null | undefined;

export type TitleKey = keyof typeof englishTitles;

// meta runs outside React, without i18next: the titles are bundled whole so a title never waits for a load.
const titleFiles = import.meta.glob<Record<string, string>>("../locales/*/titles.json", {
  eager: true,
  import: "default",
});
const titles = new Map(Object.entries(titleFiles).map(([path, json]) => [path.split("/").at(-2), json]));

function rootOf(source: readonly MatchLike[] | RootLike): RootLike {
  return (
    Array.isArray(source)
      ? (source as readonly MatchLike[]).find((m) => m?.id === "root")?.loaderData
      : source
  ) as RootLike;
}

function titleText(source: readonly MatchLike[] | RootLike, key: TitleKey): string {
  const language = rootOf(source)?.language;
  const own = typeof language === "string" ? titles.get(language)?.[key] : undefined;
  return own ?? titles.get(FALLBACK_LANGUAGE)?.[key] ?? key;
}

/** When the root loader did not run (the gate refused in middleware), the fixed default. */
export function appNameOf(source: readonly MatchLike[] | RootLike): string {
  const name = rootOf(source)?.appName;
  return typeof name === "string" && name.trim() ? name : APP_NAME;
}

/** `{ name }` for a page named by its record; null for the app's name alone. */
export function pageTitle(
  source: readonly MatchLike[] | RootLike,
  page?: TitleKey | { name: string } | null,
): MetaDescriptor[] {
  const app = appNameOf(source);
  const text = !page ? null : typeof page === "string" ? titleText(source, page) : page.name;
  return [{ title: text ? `${text} · ${app}` : app }];
}

export function errorPageName(error: unknown): TitleKey {
  if (isRouteErrorResponse(error)) {
    if (error.status === 403) return "noAccess";
    if (error.status === 404) return "notFound";
  }
  return "error";
}
