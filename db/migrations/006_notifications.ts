import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Broadcast notices and the in-app notifications they leave for each recipient.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("broadcast")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("link", "text")
    .addColumn("audience", t.json, (c) => c.notNull())
    .addColumn("recipient_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("email_status", "text", (c) => c.notNull().defaultTo("none"))
    .addColumn("emails_sent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("emails_failed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_by", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("broadcast_created_idx").on("broadcast").column("created_at").execute();

  await db.schema
    .createTable("notification")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("broadcast_id", "text", (c) => c.references("broadcast.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("link", "text")
    .addColumn("read_at", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("notification_user_created_idx")
    .on("notification")
    .columns(["user_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("notification_broadcast_idx")
    .on("notification")
    .column("broadcast_id")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("notification").ifExists().execute();
  await db.schema.dropTable("broadcast").ifExists().execute();
}
