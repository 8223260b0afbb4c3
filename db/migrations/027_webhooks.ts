import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Outgoing webhooks (decision 032): messages are written in the transaction of the change they report.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("webhook_endpoint")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    // The previous one signs too until it expires.
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("previous_secret", "text")
    .addColumn("previous_secret_until", t.timestamp)
    // 3 days of failures disables.
    .addColumn("failing_since", t.timestamp)
    .addColumn("disabled_reason", "text")
    .addColumn("created_by", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("webhook_message")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("endpoint_id", "text", (c) =>
      c.notNull().references("webhook_endpoint.id").onDelete("cascade"),
    )
    .addColumn("type", "text", (c) => c.notNull())
    // The signature covers these exact bytes.
    .addColumn("body", "text", (c) => c.notNull())
    // Messages of one resource go to one endpoint in order of creation.
    .addColumn("resource", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", t.timestamp, (c) => c.notNull())
    .addColumn("locked_until", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("delivered_at", t.timestamp)
    .execute();
  await db.schema
    .createIndex("webhook_message_due_idx")
    .on("webhook_message")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_message_resource_idx")
    .on("webhook_message")
    .columns(["endpoint_id", "resource", "created_at"])
    .execute();
  await db.schema
    .createIndex("webhook_message_endpoint_idx")
    .on("webhook_message")
    .columns(["endpoint_id", "created_at"])
    .execute();
  await db.schema
    .createTable("webhook_attempt")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("message_id", "text", (c) => c.notNull().references("webhook_message.id").onDelete("cascade"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("latency_ms", "integer", (c) => c.notNull())
    .addColumn("response", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("ok", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_attempt_message_idx")
    .on("webhook_attempt")
    .columns(["message_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("webhook_attempt_created_idx")
    .on("webhook_attempt")
    .column("created_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_attempt").ifExists().execute();
  await db.schema.dropTable("webhook_message").ifExists().execute();
  await db.schema.dropTable("webhook_endpoint").ifExists().execute();
}
