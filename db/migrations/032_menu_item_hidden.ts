import type { Kysely } from "kysely";

// A menu item an admin hides stays in the menu editor (and in its place) but is in nobody's
// sidebar (docs/decisions/037-access-tabs-and-menu-items.md). 1: hidden.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("menu_item")
    .addColumn("hidden", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("menu_item").dropColumn("hidden").execute();
}
