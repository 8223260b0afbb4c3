import { z } from "zod";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound } from "../domain-errors";
import { MENU_ICON_NAMES } from "./menu";
import { invalidateMenu, menuItems } from "./menu.server";
import { PERMISSION_KEYS } from "./permissions";

export const menuItemSchema = z.object({
  id: z.string().uuid(),
  title: z.string().trim().min(1, "Enter a title.").max(60),
  url: z
    .string()
    .trim()
    .regex(/^\/[A-Za-z0-9/_-]*$/, "Use a path inside the app, such as /dashboard/reports.")
    // Routes match without regard to case or a trailing slash: one spelling per page, so two
    // items cannot lead to the same page under different URLs.
    .transform((url) =>
      url
        .toLowerCase()
        .replace(/\/{2,}/g, "/")
        .replace(/(.)\/$/, "$1"),
    ),
  icon: z.enum(MENU_ICON_NAMES, {
    message: "Choose one of the listed icons.",
  }),
  requiredPermission: z.enum(PERMISSION_KEYS as [string, ...string[]], {
    message: "Choose a permission from the list.",
  }),
});

export async function updateMenuItem(
  actor: SessionUser,
  input: z.infer<typeof menuItemSchema>,
  origin: AuditOrigin,
) {
  const before = await db().selectFrom("menu_item").selectAll().where("id", "=", input.id).executeTakeFirst();
  if (!before) throw new NotFound("That menu item no longer exists.");
  const clash = await db()
    .selectFrom("menu_item")
    .select("title")
    .where("url", "=", input.url)
    .where("id", "!=", input.id)
    .executeTakeFirst();
  if (clash) throw new InvalidInput(`"${clash.title}" already links to ${input.url}.`, "url");
  const after = {
    title: input.title,
    url: input.url,
    icon: input.icon,
    required_permission: input.requiredPermission,
  };
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("menu_item")
        .set({ ...after, updated_at: now() })
        .where("id", "=", input.id)
        .execute();
      await audit(
        origin,
        {
          action: "menu.update",
          actor,
          target: { type: "menu_item", id: input.id },
          details: {
            before: {
              title: before.title,
              url: before.url,
              icon: before.icon,
              required_permission: before.required_permission,
            },
            after,
          },
        },
        trx,
      );
    });
  await invalidateMenu();
}

/** Swaps the item with its neighbour, renumbering positions so they stay 1..n. */
export async function moveMenuItem(
  actor: SessionUser,
  input: { id: string; direction: "up" | "down" },
  origin: AuditOrigin,
) {
  const { id, direction } = input;
  const items = [...(await menuItems())];
  const index = items.findIndex((i) => i.id === id);
  if (index < 0) throw new NotFound("That menu item no longer exists.");
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
