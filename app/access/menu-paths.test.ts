import { describe, expect, it } from "vitest";
import routes from "../routes";
import { MENU_PATHS } from "./menu";

type Entry = { path?: string; index?: boolean; children?: Entry[] };

/** Every URL the route table serves without a parameter, under /dashboard. */
function dashboardPages(entries: Entry[], parent = ""): string[] {
  return entries.flatMap((entry) => {
    const here = entry.index ? parent : entry.path ? `${parent}/${entry.path}` : parent;
    const own = entry.path || entry.index ? [here] : [];
    return [...own, ...dashboardPages(entry.children ?? [], here)];
  });
}

describe("the pages a menu item may lead to", () => {
  it("are exactly the dashboard's pages without a parameter", () => {
    const pages = dashboardPages(routes as Entry[]).filter(
      (p) => (p === "/dashboard" || p.startsWith("/dashboard/")) && !p.includes(":") && !p.includes("*"),
    );
    expect([...MENU_PATHS].sort()).toEqual([...new Set(pages)].sort());
  });
});
