import type { Kysely } from "kysely";

// Measured with scripts/measure-lists.ts on 10k users / 100k audit rows: the actor filter
// scanned the whole log without this index; the users role/status filters count faster with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("audit_log_actor_email_created_idx")
    .on("audit_log")
    .columns(["actor_email", "created_at"])
    .execute();
  await db.schema
    .createIndex("user_status_created_idx")
    .on("user")
    .columns(["status", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("user_status_created_idx").ifExists().execute();
  await db.schema.dropIndex("audit_log_actor_email_created_idx").ifExists().execute();
}
