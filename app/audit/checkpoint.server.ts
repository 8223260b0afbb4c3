import { randomUUID } from "node:crypto";
import { db, type Executor, now } from "../db.server";
import { auditIntegrityFailed } from "../metrics/metrics.server";
import { enqueueEvents } from "../webhooks/enqueue.server";
import { lockedHead } from "./audit.server";
import { type Checkpoint, signCheckpoint } from "./signing.server";
import { type Verification, verifyAuditChain } from "./verify.server";

// Signed statements of the audit chain's state, with a key the database does not hold, so a
// rewritten or shortened chain no longer matches (decision 031).

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
  await enqueueEvents(executor, [
    {
      type: "audit.checkpoint",
      resource: "audit",
      data: { kind, seq, hash, createdAt: checkpoint.created_at, signature: checkpoint.signature },
    },
  ]);
  return checkpoint;
}

export function recordStart(trx: Executor, seq: number, prevHash: string): Promise<Checkpoint> {
  return record(trx, "start", seq, prevHash);
}

type Refused = Extract<Verification, { ok: false }>;

export class AuditIntegrityError extends Error {
  constructor(readonly verification: Refused) {
    super(`audit log NOT intact (${verification.problem}): ${verification.message}`);
  }
}

/** The webhook event is committed on its own: the checkpoint's transaction wrote nothing. */
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

/** Only a verifying chain is signed, or a checkpoint would seal rows changed outside the application. */
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
    // Under the head's lock, so the segment verified is the one signed.
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

/** A refusal, alerted already, is not retried: the next hour tries again until someone looks. */
export async function scheduledCheckpoint(): Promise<Checkpoint | null> {
  try {
    return await recordHead();
  } catch (error) {
    if (error instanceof AuditIntegrityError) return null;
    throw error;
  }
}
