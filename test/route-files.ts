import type { RouteConfigEntry } from "@react-router/dev/routes";
import routes from "../app/routes";

/**
 * Every route module of app/routes.ts (and the root route) by route id, as a path from the project
 * root. Tests that read a route's source look it up here: a route in a folder of its own
 * (`app/routes/<name>/route.tsx`) keeps the id its name gives, so the id alone does not say the file.
 */
export const ROUTE_FILES: ReadonlyMap<string, string> = new Map([
  ["root", "app/root.tsx"],
  ...(function walk(list: readonly RouteConfigEntry[]): [string, string][] {
    return list.flatMap((r): [string, string][] => [
      [r.id ?? r.file.replace(/\.[a-z0-9]+$/i, ""), `app/${r.file}`],
      ...walk(r.children ?? []),
    ]);
  })(routes),
]);
