import type { MenuItem } from "../../db/schema";
import { db } from "../db.server";
import { invalidateEverywhere, registerCache } from "../events/cluster.server";
import { type LabelTranslations, readLabelTranslations } from "./label-translations";
import { MENU_VERSION_KEY } from "./menu";
import { mayAnywhere, type Subject } from "./reach.server";

export type MenuEntry = Omit<MenuItem, "label_translations"> & { translations: LabelTranslations };

let rows: Promise<MenuEntry[]> | undefined;
let loadedVersion: string | null | undefined;
let versionReadAt = Number.NEGATIVE_INFINITY;

/** Only rows the seed adds from another process wait up to this long; edits clear the cache at once (decision 041). */
export const MENU_VERSION_CHECK_MS = 2_000;

async function menuVersion(): Promise<string | null> {
  const row = await db()
    .selectFrom("system_setting")
    .select("value")
    .where("key", "=", MENU_VERSION_KEY)
    .executeTakeFirst();
  return row?.value ?? null;
}

export async function menuItems(): Promise<MenuEntry[]> {
  if (Date.now() - versionReadAt >= MENU_VERSION_CHECK_MS) {
    versionReadAt = Date.now();
    const version = await menuVersion().catch((error) => {
      versionReadAt = Number.NEGATIVE_INFINITY;
      throw error;
    });
    if (version !== loadedVersion) {
      rows = undefined;
      loadedVersion = version;
    }
  }
  if (!rows) {
    rows = db()
      .selectFrom("menu_item")
      .selectAll()
      .orderBy("position")
      .orderBy("title")
      .execute()
      .then((all) =>
        all.map(({ label_translations, ...row }) => ({
          ...row,
          translations: readLabelTranslations(label_translations),
        })),
      );
    rows.catch(() => {
      rows = undefined;
    });
  }
  return rows;
}

registerCache("menu", () => {
  rows = undefined;
});

export function invalidateMenu(): Promise<void> {
  return invalidateEverywhere("menu");
}

export type SidebarItem = Pick<MenuEntry, "id" | "title" | "url" | "icon" | "translations">;

/** An item shows when its permission is held in any scope (its page then shows what is in reach). */
export async function sidebarFor(subject: Subject | null): Promise<SidebarItem[]> {
  if (!subject) return [];
  const all = await menuItems();
  return all
    .filter((item) => !item.hidden && mayAnywhere(subject, item.required_permission))
    .map(({ id, title, url, icon, translations }) => ({ id, title, url, icon, translations }));
}
