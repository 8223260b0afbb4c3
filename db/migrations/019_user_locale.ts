import type { Kysely } from "kysely";

// The language a person chose in Settings (docs/decisions/024-languages.md); null follows the
// browser's Accept-Language. A folder name of app/locales, never validated by the database, so
// adding a language needs no migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user").addColumn("locale", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user").dropColumn("locale").execute();
}
