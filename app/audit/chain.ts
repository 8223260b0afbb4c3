import { createHash, createHmac } from "node:crypto";
import canonicalize from "canonicalize";

// The audit log's hash chain (decision 031): pure, so the migration and `npm run audit:verify` compute
// exactly what the writer did. Version 2 is keyed, so someone who can write the table cannot extend it.

export const GENESIS_HASH = "0".repeat(64);

/** Every column but the hash itself. */
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

/** PostgreSQL's jsonb reorders keys and drops spaces, so `details` is hashed in RFC 8785 (JCS) form. */
function canonicalDetails(details: string | null): string | null {
  if (details === null) return null;
  try {
    return canonicalize(JSON.parse(details)) ?? null;
  } catch {
    return details;
  }
}

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

export function chainHash(prevHash: string, row: ChainedFields): string {
  return createHash("sha256").update(prevHash).update("\n").update(serialise(1, row)).digest("hex");
}

export function keyedChainHash(key: Buffer, prevHash: string, row: ChainedFields): string {
  return createHmac("sha256", key).update(prevHash).update("\n").update(serialise(2, row)).digest("hex");
}
