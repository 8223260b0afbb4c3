import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("task")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("payload", t.json)
    .addColumn("result", t.json)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .addColumn("completed_at", t.timestamp)
    .execute();
  // The task centre lists one owner's newest tasks; the runner scans by status at start-up.
  await db.schema
    .createIndex("task_user_created_idx")
    .on("task")
    .columns(["user_id", "created_at"])
    .execute();
  await db.schema.createIndex("task_status_idx").on("task").column("status").execute();

  // Webhook ids already applied, so a replayed delivery changes nothing (pruned after an hour:
  // by then the signature timestamp alone refuses it).
  await db.schema
    .createTable("webhook_delivery")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("received_at", t.timestamp, (c) => c.notNull())
    .execute();

  // Files a task produces (the users.export CSV), kept in the database so every instance can serve them.
  await db.schema
    .createTable("task_artifact")
    .addColumn("task_id", "text", (c) => c.primaryKey().references("task.id").onDelete("cascade"))
    .addColumn("filename", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("task_artifact").execute();
  await db.schema.dropTable("webhook_delivery").execute();
  await db.schema.dropTable("task").execute();
}
