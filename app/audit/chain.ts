import { createHash, createHmac } from "node:crypto";
import canonicalize from "canonicalize";

// The audit log's hash chain (docs/decisions/031-tamper-evident-audit-log.md): each row's `hash`
// is SHA-256 over the previous row's hash and the row's own fields, so an edited, deleted,
// inserted or reordered row breaks every link after it. Pure, so the migration that chained the
// rows written before it and `npm run audit:verify` compute exactly what the writer did.
// Version 1 (plain SHA-256) needs no secret, so anyone who can write the table could extend it;
// rows are now written as version 2, an HMAC keyed with the audit signing key, marked in the row's
// `hash_version` (migration 033). Version 1 rows written before that still verify as they are.

/** The `prev_hash` of the first row ever written. */
export const GENESIS_HASH = "0".repeat(64);

/** The fields a row's hash covers: every column but the hash itself. */
export type ChainedFields = {
  seq: number;
  id: string;
  created_at: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: string | null;
  ip: string | null;
  user_agent: string | null;
  impersonator_id: string | null;
  impersonator_email: string | null;
  request_id: string | null;
};

/**
 * `details` by its meaning, not its bytes: PostgreSQL's jsonb reorders keys and drops spaces, so
 * the text read back is not the text written. RFC 8785 (JCS) gives both the same form.
 */
function canonicalDetails(details: string | null): string | null {
  if (details === null) return null;
  try {
    return canonicalize(JSON.parse(details)) ?? null;
  } catch {
    return details;
  }
}

/** The `hash_version` of a keyed row, which only a holder of the key can compute. */
export const KEYED = 2;

function serialise(v: 1 | 2, row: ChainedFields): string {
  return canonicalize({
    v,
    seq: row.seq,
    id: row.id,
    created_at: row.created_at,
    actor_id: row.actor_id,
    actor_email: row.actor_email,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    details: canonicalDetails(row.details),
    ip: row.ip,
    user_agent: row.user_agent,
    impersonator_id: row.impersonator_id,
    impersonator_email: row.impersonator_email,
    request_id: row.request_id,
  })!;
}

/** A version 1 row's hash, given the hash of the row before it (migration 026 and older rows). */
export function chainHash(prevHash: string, row: ChainedFields): string {
  return createHash("sha256").update(prevHash).update("\n").update(serialise(1, row)).digest("hex");
}

/** A version 2 row's hash: the same link, keyed with the audit signing key (app/audit/signing.server.ts). */
export function keyedChainHash(key: Buffer, prevHash: string, row: ChainedFields): string {
  return createHmac("sha256", key).update(prevHash).update("\n").update(serialise(2, row)).digest("hex");
}
