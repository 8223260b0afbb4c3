import type { MenuItem } from "../../db/schema";
import { db } from "../db.server";
import { invalidateEverywhere, registerCache } from "../events/cluster.server";
import type { AccessSubject } from "./check";
import { can } from "./check";

let rows: Promise<MenuItem[]> | undefined;

/** Menu rows in display order, cached in process until invalidateMenu() is called by an edit. */
export function menuItems(): Promise<MenuItem[]> {
  if (!rows) {
    rows = db().selectFrom("menu_item").selectAll().orderBy("position").orderBy("title").execute();
    rows.catch(() => {
      rows = undefined;
    });
  }
  return rows;
}

registerCache("menu", () => {
  rows = undefined;
});

/** Clears the cache here and on every other instance. */
export function invalidateMenu(): Promise<void> {
  return invalidateEverywhere("menu");
}

export type SidebarItem = Pick<MenuItem, "id" | "title" | "url" | "icon">;

/** The rows whose required permission the subject holds. */
export async function sidebarFor(subject: AccessSubject | null): Promise<SidebarItem[]> {
  if (!subject) return [];
  const all = await menuItems();
  return all
    .filter((item) => can(subject, item.required_permission))
    .map(({ id, title, url, icon }) => ({ id, title, url, icon }));
}
