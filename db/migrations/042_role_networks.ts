import type { Kysely } from "kysely";

// Network rules per role (docs/decisions/050-network-rules.md): a JSON array of CIDRs; empty, the
// role may be used from anywhere.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("role")
    .addColumn("allowed_networks", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("role").dropColumn("allowed_networks").execute();
}
