import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { signCheckpoint } from "../../app/audit/signing.server";

// How an audit row's hash was computed (docs/decisions/031-tamper-evident-audit-log.md, app/audit/chain.ts):
// null for the rows written before this (version 1, plain SHA-256, verified as they are); 2 for
// the rows linked since with an HMAC of the audit signing key. Nullable, so adding it rewrites
// nothing on either engine.

type Tables = {
  audit_chain: { id: number; seq: number; hash: string };
  audit_checkpoint: {
    id: string;
    kind: string;
    seq: number;
    hash: string;
    created_at: string;
    signature: string;
  };
};

/**
 * Signs the head of the version 1 rows, so a plain row appended after them (by someone without
 * the key, before the first keyed row is written) is covered by no checkpoint and is named.
 */
export async function signLegacyHead(db: Kysely<unknown>) {
  const data = db.withTables<Tables>();
  const head = await data
    .selectFrom("audit_chain")
    .select(["seq", "hash"])
    .where("id", "=", 1)
    .executeTakeFirst();
  if (!head || Number(head.seq) === 0) return;
  const unsigned = {
    kind: "head" as const,
    seq: Number(head.seq),
    hash: head.hash,
    created_at: new Date().toISOString(),
  };
  await data
    .insertInto("audit_checkpoint")
    .values({ id: randomUUID(), ...unsigned, signature: signCheckpoint(unsigned) })
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("audit_log").addColumn("hash_version", "integer").execute();
  await signLegacyHead(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("audit_log").dropColumn("hash_version").execute();
}
