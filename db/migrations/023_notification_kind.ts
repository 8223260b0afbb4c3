import type { Kysely } from "kysely";
import { sql } from "kysely";

// Who wrote a notification (docs/rules.md, "Broadcast"): "broadcast", a notice a person with
// settings.manage wrote (the bell names its sender), or "security", a notice the app itself writes
// (a super admin's settings change), which only the app sets and a broadcast cannot look like. The
// default is the less trusted kind, so a row written without one is never shown as a security
// notice. Rows from before: a notification without a broadcast was a security notice (the only kind
// the app wrote).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("notification")
    .addColumn("kind", "text", (c) => c.notNull().defaultTo("broadcast"))
    .execute();
  await sql`update notification set kind = 'security' where broadcast_id is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("notification").dropColumn("kind").execute();
}
