import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Settings stored in the database (they win over the environment), the record of every email
// sent, and the single-use tokens behind verify / reset / invite links.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("system_setting")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("is_secret", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_by", "text")
    .execute();

  await db.schema
    .createTable("mail_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("to_address", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("provider_message_id", "text")
    .addColumn("error", "text")
    .addColumn("outbox_link", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("mail_log_created_idx").on("mail_log").column("created_at").execute();

  await db.schema
    .createTable("user_token")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.references("user.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("data", t.json)
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .addColumn("used_at", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("user_token_user_idx").on("user_token").columns(["user_id", "kind"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["user_token", "mail_log", "system_setting"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
