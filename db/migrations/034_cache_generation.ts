import type { Kysely } from "kysely";

// Instances sharing a PostgreSQL database leave here a new generation for each in-process cache
// they clear, and compare it before serving a request (app/events/cache-generations.server.ts,
// decision 041): a LISTEN/NOTIFY message alone can arrive late, or never while a listener reconnects.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("cache_generation")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("generation", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("cache_generation").execute();
}
