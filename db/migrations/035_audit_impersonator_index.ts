import type { Kysely } from "kysely";

// One person's trail (the audit log's `person` filter) walks three index ranges, newest first: what
// they did, what was done to them, and what they did while viewing as someone else.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("audit_log_impersonator_created_id_idx")
    .on("audit_log")
    .columns(["impersonator_id", "created_at", "id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("audit_log_impersonator_created_id_idx").execute();
}
