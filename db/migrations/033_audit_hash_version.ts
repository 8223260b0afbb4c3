import type { Kysely } from "kysely";

// How an audit row's hash was computed (docs/decisions/031-tamper-evident-audit-log.md, app/audit/chain.ts):
// null for the rows written before this (version 1, plain SHA-256, verified as they are); 2 for
// the rows linked since with an HMAC of the audit signing key. Nullable, so adding it rewrites
// nothing on either engine.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("audit_log").addColumn("hash_version", "integer").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("audit_log").dropColumn("hash_version").execute();
}
