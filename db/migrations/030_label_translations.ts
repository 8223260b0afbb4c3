import type { Kysely } from "kysely";

// Labels an admin writes per language (docs/decisions/040-label-translations.md): a JSON object
// of language code to text, e.g. {"de":"Berichte"}, on the two kinds of row whose label an admin
// writes. Text, not jsonb, so SQLite and PostgreSQL store and read it alike; the app validates it
// with zod on the way in and on the way out (app/access/label-translations.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ["role", "menu_item"])
    await db.schema
      .alterTable(table)
      .addColumn("label_translations", "text", (c) => c.notNull().defaultTo("{}"))
      .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["role", "menu_item"])
    await db.schema.alterTable(table).dropColumn("label_translations").execute();
}
