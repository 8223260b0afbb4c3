import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { MenuItem } from "../../db/schema";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound } from "../domain-errors";
import {
  type MaybeTranslated,
  readLabelTranslations,
  sameTranslations,
  writeLabelTranslations,
} from "./label-translations";
import { assertKnownLanguages } from "./label-translations.server";
import { MENU_PATHS } from "./menu";
import { invalidateMenu, menuItems } from "./menu.server";
import type { addMenuItemSchema, menuItemSchema, saveMenuSchema } from "./menu-schemas";

/** A URL saved before pages were chosen from the list may stay. */
function assertKnownPath(url: string, before: string, field: string) {
  if (url !== before && !(MENU_PATHS as readonly string[]).includes(url))
    throw new InvalidInput("access.menuPathUnknown", field);
}

export async function updateMenuItem(
  actor: AuditedActor,
  input: MaybeTranslated<z.infer<typeof menuItemSchema>>,
  origin: AuditOrigin,
) {
  const translations = input.translations ?? {};
  assertKnownLanguages(translations, "translations");
  const before = await db().selectFrom("menu_item").selectAll().where("id", "=", input.id).executeTakeFirst();
  if (!before) throw new NotFound("access.menuItemGone");
  assertKnownPath(input.url, before.url, "url");
  const clash = await db()
    .selectFrom("menu_item")
    .select("title")
    .where("url", "=", input.url)
    .where("id", "!=", input.id)
    .executeTakeFirst();
  if (clash) throw new InvalidInput("access.menuUrlTaken", "url", { title: clash.title, url: input.url });
  const after = {
    title: input.title,
    translations,
    url: input.url,
    icon: input.icon,
    required_permission: input.requiredPermission,
  };
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("menu_item")
        .set({ ...columnsOf(after), updated_at: now() })
        .where("id", "=", input.id)
        .execute();
      await audit(
        origin,
        {
          action: "menu.update",
          actor,
          target: { type: "menu_item", id: input.id },
          details: {
            before: fieldsOf(before),
            after,
          },
        },
        trx,
      );
    });
  await invalidateMenu();
}

export async function moveMenuItem(
  actor: AuditedActor,
  input: { id: string; direction: "up" | "down" },
  origin: AuditOrigin,
) {
  const { id, direction } = input;
  const items = [...(await menuItems())];
  const index = items.findIndex((i) => i.id === id);
  if (index < 0) throw new NotFound("access.menuItemGone");
  const target = direction === "up" ? index - 1 : index + 1;
  if (target < 0 || target >= items.length) return;
  [items[index], items[target]] = [items[target]!, items[index]!];
  await db()
    .transaction()
    .execute(async (trx) => {
      for (const [i, item] of items.entries()) {
        await trx
          .updateTable("menu_item")
          .set({ position: i + 1 })
          .where("id", "=", item.id)
          .execute();
      }
      await audit(
        origin,
        {
          action: "menu.update",
          actor,
          target: { type: "menu_item", id },
          details: { moved: direction, from: index + 1, to: target + 1 },
        },
        trx,
      );
    });
  await invalidateMenu();
}

const fieldsOf = (row: MenuItem) => ({
  title: row.title,
  translations: readLabelTranslations(row.label_translations),
  url: row.url,
  icon: row.icon,
  required_permission: row.required_permission,
});

function columnsOf<T extends { translations: Record<string, string> }>({ translations, ...rest }: T) {
  return { ...rest, label_translations: writeLabelTranslations(translations) };
}

/** Items added meanwhile and left out of the form keep their relative order after the ones sent. */
export async function saveMenu(
  actor: AuditedActor,
  input: { items: MaybeTranslated<z.infer<typeof saveMenuSchema>["items"][number]>[] },
  origin: AuditOrigin,
) {
  const rows = await db().selectFrom("menu_item").selectAll().orderBy("position").orderBy("title").execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const item of input.items) if (!byId.has(item.id)) throw new NotFound("access.menuItemGone");
  for (const [i, item] of input.items.entries())
    assertKnownPath(item.url, byId.get(item.id)!.url, `items[${i}].url`);
  const sent = new Set(input.items.map((i) => i.id));
  const untouched = rows.filter((r) => !sent.has(r.id));
  for (const [i, item] of input.items.entries()) {
    assertKnownLanguages(item.translations ?? {}, `items[${i}].translations`);
    const clash = untouched.find((r) => r.url === item.url);
    if (clash)
      throw new InvalidInput("access.menuUrlTaken", `items[${i}].url`, { title: clash.title, url: item.url });
  }
  const wanted = [
    ...input.items.map((item) => ({
      id: item.id,
      title: item.title,
      translations: item.translations ?? {},
      url: item.url,
      icon: item.icon,
      required_permission: item.requiredPermission,
    })),
    ...untouched.map((r) => ({ id: r.id, ...fieldsOf(r) })),
  ].map((item, i) => ({ ...item, position: i + 1 }));
  const changed = wanted.filter((item) => {
    const row = byId.get(item.id)!;
    return (
      row.title !== item.title ||
      !sameTranslations(readLabelTranslations(row.label_translations), item.translations) ||
      row.url !== item.url ||
      row.icon !== item.icon ||
      row.required_permission !== item.required_permission ||
      row.position !== item.position
    );
  });
  if (!changed.length) return 0;
  await db()
    .transaction()
    .execute(async (trx) => {
      // URLs are unique: park the moving ones first so two items can swap theirs.
      for (const item of changed)
        if (item.url !== byId.get(item.id)!.url)
          await trx
            .updateTable("menu_item")
            .set({ url: `/__moving/${item.id}` })
            .where("id", "=", item.id)
            .execute();
      for (const item of changed) {
        const before = byId.get(item.id)!;
        const { id, ...after } = item;
        await trx
          .updateTable("menu_item")
          .set({ ...columnsOf(after), updated_at: now() })
          .where("id", "=", id)
          .execute();
        await audit(
          origin,
          {
            action: "menu.update",
            actor,
            target: { type: "menu_item", id },
            details: { before: { ...fieldsOf(before), position: before.position }, after },
          },
          trx,
        );
      }
    });
  await invalidateMenu();
  return changed.length;
}

export async function addMenuItem(
  actor: AuditedActor,
  input: z.infer<typeof addMenuItemSchema>,
  origin: AuditOrigin,
) {
  const clash = await db()
    .selectFrom("menu_item")
    .select("title")
    .where("url", "=", input.url)
    .executeTakeFirst();
  if (clash) throw new InvalidInput("access.menuUrlTaken", "url", { title: clash.title, url: input.url });
  const id = randomUUID();
  const ts = now();
  const fields = {
    title: input.title,
    url: input.url,
    icon: input.icon,
    required_permission: input.requiredPermission,
  };
  await db()
    .transaction()
    .execute(async (trx) => {
      const last = await trx
        .selectFrom("menu_item")
        .select((eb) => eb.fn.max("position").as("position"))
        .executeTakeFirst();
      const position = Number(last?.position ?? 0) + 1;
      await trx
        .insertInto("menu_item")
        .values({ id, ...fields, position, hidden: 0, created_at: ts, updated_at: ts })
        .execute();
      await audit(
        origin,
        {
          action: "menu.create",
          actor,
          target: { type: "menu_item", id },
          details: { after: { ...fields, position } },
        },
        trx,
      );
    });
  await invalidateMenu();
  return id;
}

/** False when it already was so (nothing written, nothing audited). */
export async function setMenuItemHidden(
  actor: AuditedActor,
  input: { id: string; hidden: boolean },
  origin: AuditOrigin,
) {
  const before = await db()
    .selectFrom("menu_item")
    .select(["id", "title", "url", "hidden"])
    .where("id", "=", input.id)
    .executeTakeFirst();
  if (!before) throw new NotFound("access.menuItemGone");
  const hidden = input.hidden ? 1 : 0;
  if (before.hidden === hidden) return false;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("menu_item")
        .set({ hidden, updated_at: now() })
        .where("id", "=", input.id)
        .execute();
      await audit(
        origin,
        {
          action: input.hidden ? "menu.hide" : "menu.show",
          actor,
          target: { type: "menu_item", id: input.id },
          details: { title: before.title, url: before.url },
        },
        trx,
      );
    });
  await invalidateMenu();
  return true;
}
