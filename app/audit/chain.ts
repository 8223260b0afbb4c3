import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

// The audit log's hash chain (docs/decisions/031-tamper-evident-audit-log.md): each row's `hash`
// is SHA-256 over the previous row's hash and the row's own fields, so an edited, deleted,
// inserted or reordered row breaks every link after it. Pure, so the migration that chained the
// rows written before it and `npm run audit:verify` compute exactly what the writer did.

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

/** The row's hash, given the hash of the row before it. */
export function chainHash(prevHash: string, row: ChainedFields): string {
  const fields = canonicalize({
    v: 1,
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
  });
  return createHash("sha256").update(prevHash).update("\n").update(fields!).digest("hex");
}
