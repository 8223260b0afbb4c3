import { db, now } from "../db.server";
import type { AuditIntegrity } from "./integrity";

/** One row by key and one index step: the chain's head and the newest checkpoint. */
export async function auditIntegrity(): Promise<AuditIntegrity> {
  const [head, checkpoint] = await Promise.all([
    db().selectFrom("audit_chain").select("last_verification").where("id", "=", 1).executeTakeFirst(),
    db()
      .selectFrom("audit_checkpoint")
      .select("created_at")
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst(),
  ]);
  let lastVerification: AuditIntegrity["lastVerification"] = null;
  if (head?.last_verification) {
    const d = JSON.parse(head.last_verification) as {
      at: string;
      ok?: boolean;
      rows?: number;
      upTo?: string | null;
      message?: string;
    };
    lastVerification = {
      at: d.at,
      ok: d.ok === true,
      rows: Number(d.rows ?? 0),
      upTo: d.upTo ?? null,
      message: d.message ?? null,
    };
  }
  return { lastVerification, lastCheckpointAt: checkpoint?.created_at ?? null };
}

/** Keeps a verification's outcome for Settings, beside the chain's head. */
export async function recordVerification(outcome: Record<string, unknown>) {
  await db()
    .updateTable("audit_chain")
    .set({ last_verification: JSON.stringify({ ...outcome, at: now() }) })
    .where("id", "=", 1)
    .execute();
}
