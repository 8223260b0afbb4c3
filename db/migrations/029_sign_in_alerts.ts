import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// New sign-in alerts (decision 035).
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("known_device")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    // The cookie itself is never stored.
    .addColumn("device_hash", "text", (c) => c.notNull())
    .addColumn("ua_family", "text", (c) => c.notNull())
    .addColumn("user_agent", "text")
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("first_seen_at", t.timestamp, (c) => c.notNull())
    .addColumn("last_seen_at", t.timestamp, (c) => c.notNull())
    .addColumn("alerted_at", t.timestamp)
    .execute();
  await db.schema
    .createIndex("known_device_user_idx")
    .on("known_device")
    .columns(["user_id", "device_hash"])
    .execute();
  await db.schema
    .alterTable("user")
    .addColumn("sign_in_alerts", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user").dropColumn("sign_in_alerts").execute();
  await db.schema.dropTable("known_device").execute();
}
