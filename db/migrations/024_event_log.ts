import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";
import { dialectOf } from "../connection";

// The events /api/events sends, each with a global, ordered id (docs/decisions/029-durable-event-ids.md):
// a client that reconnects with Last-Event-ID is sent what it missed from here, on any instance.
// A bounded window (app/events/event-log.server.ts prunes it), so no foreign key to `user`: rows
// go by themselves within a day, and a write per event stays one insert.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const pg = dialectOf(db) === "postgres";
  await db.schema
    .createTable("event_log")
    .addColumn("id", pg ? "bigserial" : "integer", (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("event_log_user_id_idx").on("event_log").columns(["user_id", "id"]).execute();
  await db.schema.createIndex("event_log_created_idx").on("event_log").column("created_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("event_log").ifExists().execute();
}
