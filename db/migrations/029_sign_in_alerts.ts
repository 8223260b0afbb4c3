import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// New sign-in alerts (docs/decisions/035-sign-in-alerts.md): the devices each person signed in
// from (a hashed device cookie, the browser family, the network), and whether they want an email
// when a sign-in comes from none of them.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("known_device")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    // SHA-256 of the device cookie's value: the cookie itself is never stored.
    .addColumn("device_hash", "text", (c) => c.notNull())
    // "Chrome|macOS": browser and system without versions.
    .addColumn("ua_family", "text", (c) => c.notNull())
    // The last user agent seen, for "Chrome 131 on macOS" in the list.
    .addColumn("user_agent", "text")
    // "203.0.113.0/24" or "2001:db8:1::/48"
    .addColumn("network", "text", (c) => c.notNull())
    .addColumn("first_seen_at", t.timestamp, (c) => c.notNull())
    .addColumn("last_seen_at", t.timestamp, (c) => c.notNull())
    // When this device's sign-in was last reported by email: never more than once a day.
    .addColumn("alerted_at", t.timestamp)
    .execute();
  await db.schema
    .createIndex("known_device_user_idx")
    .on("known_device")
    .columns(["user_id", "device_hash"])
    .execute();
  // 1: email me about sign-ins from a new device (an admin may require it for everyone).
  await db.schema
    .alterTable("user")
    .addColumn("sign_in_alerts", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user").dropColumn("sign_in_alerts").execute();
  await db.schema.dropTable("known_device").execute();
}
