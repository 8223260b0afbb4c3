import { randomUUID } from "node:crypto";
import { db, type Executor, now } from "../db.server";
import { auditIntegrityFailed } from "../metrics/metrics.server";
import { enqueueEvents } from "../webhooks/enqueue.server";
import { lockedHead } from "./audit.server";
import { type Checkpoint, signCheckpoint } from "./signing.server";
import { type Verification, verifyAuditChain } from "./verify.server";

// Signed statements of the audit chain's state (docs/decisions/031-tamper-evident-audit-log.md).
// A checkpoint's HMAC needs a key the database does not hold (AUDIT_SIGNING_KEY, else derived from
// SESSION_SECRET), so a rewritten chain no longer matches the signed hash of a row it passed, and
// a shortened one misses rows a checkpoint names. "head": the last row, hourly, at every retention
// run and on `npm run audit:checkpoint`; "start": the first row left by retention, so a chain that
// no longer starts at the genesis still verifies.

export type { Checkpoint };

async function record(
  executor: Executor,
  kind: Checkpoint["kind"],
  seq: number,
  hash: string,
): Promise<Checkpoint> {
  const unsigned = { kind, seq, hash, created_at: now() };
  const checkpoint = { id: randomUUID(), ...unsigned, signature: signCheckpoint(unsigned) };
  await executor.insertInto("audit_checkpoint").values(checkpoint).execute();
  // A copy of the chain's state outside the database, with whoever subscribes (app/webhooks).
  await enqueueEvents(executor, [
    {
      type: "audit.checkpoint",
      resource: "audit",
      data: { kind, seq, hash, createdAt: checkpoint.created_at, signature: checkpoint.signature },
    },
  ]);
  return checkpoint;
}

/** Signs where the chain now starts, in the transaction of the retention run that cut it there. */
export function recordStart(trx: Executor, seq: number, prevHash: string): Promise<Checkpoint> {
  return record(trx, "start", seq, prevHash);
}

type Refused = Extract<Verification, { ok: false }>;

/** A head checkpoint refused because the chain does not verify; nothing was signed. */
export class AuditIntegrityError extends Error {
  constructor(readonly verification: Refused) {
    super(`audit log NOT intact (${verification.problem}): ${verification.message}`);
  }
}

/**
 * Says, everywhere an operator looks, that the chain failed: a log line, the metric
 * `dashboard_audit_integrity_failures_total`, and an `audit.integrity_failed` webhook event
 * (committed on its own: the checkpoint's transaction wrote nothing).
 */
async function alert(verification: Refused) {
  console.error(`[audit] checkpoint refused, nothing signed: ${verification.message}`);
  auditIntegrityFailed();
  const { problem, seq, id, message } = verification;
  await enqueueEvents(db(), [
    {
      type: "audit.integrity_failed",
      resource: "audit",
      data: { problem, seq, id, message, detectedAt: now() },
    },
  ]);
}

/**
 * Signs the chain's head, unless the last head checkpoint already names it (an idle hour adds
 * nothing): returns the new checkpoint, or null. Only a chain that verifies from the newest
 * checkpoint to the head is signed: otherwise a checkpoint would seal rows added or changed
 * outside the application, so it signs nothing, raises the alert and throws AuditIntegrityError.
 */
export async function recordHead(database: Executor = db()): Promise<Checkpoint | null> {
  const outcome = await database.transaction().execute(async (trx) => {
    const current = await lockedHead(trx);
    if (!current || Number(current.seq) === 0) return null;
    const last = await trx
      .selectFrom("audit_checkpoint")
      .select("seq")
      .where("kind", "=", "head")
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    // Under the head's lock, so the segment verified is the one signed; an idle hour verifies
    // the one row the last checkpoint names, so an edit to it is alerted too.
    const verification = await verifyAuditChain({ database: trx, sinceLastCheckpoint: true });
    if (!verification.ok) return verification;
    if (last && Number(last.seq) === Number(current.seq)) return null;
    return record(trx, "head", Number(current.seq), current.hash);
  });
  if (outcome && "ok" in outcome) {
    await alert(outcome);
    throw new AuditIntegrityError(outcome);
  }
  return outcome;
}

/**
 * The scheduled checkpoint (hourly, and after retention): the same rule, but a refusal, alerted
 * already, is not an error to retry: the next hour tries again and refuses again until someone
 * looks (`npm run audit:verify`).
 */
export async function scheduledCheckpoint(): Promise<Checkpoint | null> {
  try {
    return await recordHead();
  } catch (error) {
    if (error instanceof AuditIntegrityError) return null;
    throw error;
  }
}
