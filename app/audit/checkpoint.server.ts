import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { AuditCheckpointTable } from "../../db/schema";
import { db, type Executor, now } from "../db.server";
import { env, sessionSecrets } from "../env.server";
import { enqueueEvents } from "../webhooks/enqueue.server";
import { lockedHead } from "./audit.server";

// Signed statements of the audit chain's state (docs/decisions/031-tamper-evident-audit-log.md).
// The chain alone shows an edit to anyone who cannot recompute it; someone who can write the
// database can recompute every hash after the row they changed. A checkpoint's HMAC needs a key
// the database does not hold (AUDIT_SIGNING_KEY, else derived from SESSION_SECRET), so a rewritten
// chain no longer matches the signed hash of a row it passed, and a shortened one misses rows a
// checkpoint names. "head": the last row, hourly and at every retention run; "start": the first
// row left by retention, so a chain that no longer starts at the genesis still verifies.

export type Checkpoint = AuditCheckpointTable;

function keys(): Buffer[] {
  const dedicated = (env().AUDIT_SIGNING_KEY ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  const material = dedicated.length ? dedicated : sessionSecrets();
  return material.map((m) => createHmac("sha256", "audit-checkpoint").update(m).digest());
}

function signWith(key: Buffer, c: Omit<Checkpoint, "id" | "signature">): Buffer {
  return createHmac("sha256", key).update(`v1\n${c.kind}\n${c.seq}\n${c.hash}\n${c.created_at}`).digest();
}

/** Whether a stored checkpoint was signed by one of the configured keys. */
export function checkpointSigned(c: Checkpoint): boolean {
  const given = Buffer.from(c.signature, "hex");
  return keys().some((key) => {
    const expected = signWith(key, c);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

async function record(
  executor: Executor,
  kind: Checkpoint["kind"],
  seq: number,
  hash: string,
): Promise<Checkpoint> {
  const unsigned = { kind, seq, hash, created_at: now() };
  const checkpoint = {
    id: randomUUID(),
    ...unsigned,
    signature: signWith(keys()[0]!, unsigned).toString("hex"),
  };
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

/**
 * Signs the chain's head, unless the last head checkpoint already names it (an idle hour adds
 * nothing). Returns the new checkpoint, or null.
 */
export async function recordHead(database: Executor = db()): Promise<Checkpoint | null> {
  return database.transaction().execute(async (trx) => {
    const current = await lockedHead(trx);
    if (!current || Number(current.seq) === 0) return null;
    const last = await trx
      .selectFrom("audit_checkpoint")
      .select("seq")
      .where("kind", "=", "head")
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    if (last && Number(last.seq) === Number(current.seq)) return null;
    return record(trx, "head", Number(current.seq), current.hash);
  });
}
