import { db } from "../db.server";
import { audit, lockedHead } from "./audit.server";
import { recordStart, scheduledCheckpoint } from "./checkpoint.server";

const DAY_MS = 86_400_000;

/**
 * The only delete of audit rows in the product. The chain is cut at its oldest end only, and the
 * first row left is signed as a "start" checkpoint in the same transaction, so the rest still verifies (decision 031).
 */
export async function purgeExpiredAudit(days: number, at = new Date()): Promise<number> {
  if (!Number.isFinite(days) || days < 1) return 0;
  const cutoff = new Date(at.getTime() - days * DAY_MS).toISOString();
  const database = db();
  const removed = await database.transaction().execute(async (trx) => {
    const head = await lockedHead(trx);
    if (!head)
      throw new Error("the audit chain's head (table audit_chain) is missing: run npm run audit:verify");
    const last = await trx
      .selectFrom("audit_log")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("created_at", "<", cutoff)
      .executeTakeFirst();
    const lastSeq = last?.seq == null ? null : Number(last.seq);
    const res = await trx
      .deleteFrom("audit_log")
      .where((eb) =>
        eb.or([
          eb.and([eb("seq", "is", null), eb("created_at", "<", cutoff)]),
          ...(lastSeq === null ? [] : [eb("seq", "<=", lastSeq)]),
        ]),
      )
      .executeTakeFirst();
    if (lastSeq !== null) {
      const first = await trx
        .selectFrom("audit_log")
        .select(["seq", "prev_hash"])
        .where("seq", "is not", null)
        .orderBy("seq")
        .limit(1)
        .executeTakeFirst();
      if (first) await recordStart(trx, Number(first.seq), first.prev_hash!);
      else await recordStart(trx, Number(head.seq) + 1, head.hash);
    }
    return Number(res.numDeletedRows);
  });
  if (removed > 0) {
    await audit(
      { request: new Request("http://internal/retention", { headers: { "User-Agent": "retention-job" } }) },
      {
        action: "audit.retention",
        target: { type: "audit_log", id: null },
        details: { removed, olderThan: cutoff, days },
      },
    );
  }
  await scheduledCheckpoint();
  return removed;
}
