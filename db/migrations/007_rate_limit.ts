import type { Kysely } from "kysely";
import { dialectOf } from "../connection";

// Rate-limit counters shared by every instance (rate-limiter-flexible's RateLimiterPostgres layout,
// with a text key: an email-keyed counter can pass varchar(255)). SQLite means one instance, whose
// counters stay in memory, so the table exists only on PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== "postgres") return;
  await db.schema
    .createTable("rate_limit")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("points", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expire", "bigint")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_limit").ifExists().execute();
}
