import type { Kysely } from "kysely";

// Email templates (decision 052): an organisation's own words per type and language, every
// change kept as a version (restore, and the mail log's record of which words a mail used).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("email_template")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    // Null: the product's default words for that field.
    .addColumn("subject", "text")
    .addColumn("heading", "text")
    .addColumn("message", "text")
    .addColumn("button", "text")
    .addColumn("footer", "text")
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("updated_by", "text")
    .addPrimaryKeyConstraint("email_template_pk", ["type", "language"])
    .execute();
  await db.schema
    .createTable("email_template_version")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    // "update", "restore" or "reset" (every field null: the defaults again).
    .addColumn("change", "text", (c) => c.notNull())
    .addColumn("subject", "text")
    .addColumn("heading", "text")
    .addColumn("message", "text")
    .addColumn("button", "text")
    .addColumn("footer", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    // Kept as written: the history outlives the account.
    .addColumn("created_by_email", "text")
    .execute();
  await db.schema
    .createIndex("email_template_version_idx")
    .on("email_template_version")
    .columns(["type", "language", "version"])
    .unique()
    .execute();
  // Which version of the words a mail used; null: the defaults.
  await db.schema.alterTable("mail_log").addColumn("template_version", "integer").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("mail_log").dropColumn("template_version").execute();
  await db.schema.dropTable("email_template_version").execute();
  await db.schema.dropTable("email_template").execute();
}
