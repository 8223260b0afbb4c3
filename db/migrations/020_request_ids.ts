import type { Kysely } from "kysely";

// The id of the request that wrote an audit row or started a task (docs/decisions/026-request-ids.md),
// so a user's "Reference: …" leads to the rows and log lines of that request. Null for rows written
// before this migration and for work outside a request (the retention schedule, seeds).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("audit_log").addColumn("request_id", "text").execute();
  await db.schema.alterTable("task").addColumn("request_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("task").dropColumn("request_id").execute();
  await db.schema.alterTable("audit_log").dropColumn("request_id").execute();
}
