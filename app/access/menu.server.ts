import type { MenuItem } from "../../db/schema";
import { db } from "../db.server";
import { invalidateEverywhere, registerCache } from "../events/cluster.server";
import type { AccessSubject } from "./check";
import { can } from "./check";
import { MENU_VERSION_KEY } from "./menu";

let rows: Promise<MenuItem[]> | undefined;
let loadedVersion: string | null | undefined;

/** One primary-key read: the version the seed bumps when it adds rows from another process. */
async function menuVersion(): Promise<string | null> {
  const row = await db()
    .selectFrom("system_setting")
    .select("value")
    .where("key", "=", MENU_VERSION_KEY)
    .executeTakeFirst();
  return row?.value ?? null;
}

/**
 * Menu rows in display order, cached in process until invalidateMenu() is called by an edit
 * (on any instance) or the seed, run as its own process, bumps the menu version.
 */
export async function menuItems(): Promise<MenuItem[]> {
  const version = await menuVersion();
  if (version !== loadedVersion) {
    rows = undefined;
    loadedVersion = version;
  }
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
