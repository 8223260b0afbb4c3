import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";

// Sessions one can see and end (decision 051): each session's public handle (a hash of its id, as
// the Settings page shows it) stored, so ending one by its handle is one indexed read; the order
// the sessions page lists them in; and a role's own limits, stricter than the global ones.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("session").addColumn("handle", "text").execute();
  const handleOf = (id: string) => createHash("sha256").update(id).digest("base64url").slice(0, 16);
  for (;;) {
    const rows = await sql<{ id: string }>`select id from session where handle is null limit 500`.execute(db);
    if (rows.rows.length === 0) break;
    for (const { id } of rows.rows)
      await sql`update session set handle = ${handleOf(id)} where id = ${id}`.execute(db);
  }
  await db.schema.createIndex("session_handle_idx").on("session").column("handle").execute();
  await db.schema
    .createIndex("session_last_seen_idx")
    .on("session")
    .columns(["last_seen_at", "handle"])
    .execute();
  // A person's own sessions newest first (Settings, the person's page), so the list's index above
  // is never the cheaper way to them.
  await db.schema
    .createIndex("session_user_seen_idx")
    .on("session")
    .columns(["user_id", "last_seen_at"])
    .execute();
  // Its first column does what the old one did.
  await db.schema.dropIndex("session_user_idx").ifExists().execute();
  await db.schema.alterTable("role").addColumn("session_idle_minutes", "integer").execute();
  await db.schema.alterTable("role").addColumn("session_max_hours", "integer").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("role").dropColumn("session_max_hours").execute();
  await db.schema.alterTable("role").dropColumn("session_idle_minutes").execute();
  await db.schema.createIndex("session_user_idx").on("session").column("user_id").execute();
  await db.schema.dropIndex("session_user_seen_idx").ifExists().execute();
  await db.schema.dropIndex("session_last_seen_idx").ifExists().execute();
  await db.schema.dropIndex("session_handle_idx").ifExists().execute();
  await db.schema.alterTable("session").dropColumn("handle").execute();
}
