import { db } from "../db.server";
import type { AuditIntegrity } from "./integrity";

/** Both are one index step: the log's (action, created_at) index and the checkpoints' seq. */
export async function auditIntegrity(): Promise<AuditIntegrity> {
  const [verification, checkpoint] = await Promise.all([
    db()
      .selectFrom("audit_log")
      .select(["created_at", "details"])
      .where("action", "=", "audit.verify")
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst(),
    db()
      .selectFrom("audit_checkpoint")
      .select("created_at")
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst(),
  ]);
  let lastVerification: AuditIntegrity["lastVerification"] = null;
  if (verification) {
    const d = JSON.parse(verification.details ?? "{}") as {
      ok?: boolean;
      rows?: number;
      upTo?: string | null;
      message?: string;
    };
    lastVerification = {
      at: verification.created_at,
      ok: d.ok === true,
      rows: Number(d.rows ?? 0),
      upTo: d.upTo ?? null,
      message: d.message ?? null,
    };
  }
  return { lastVerification, lastCheckpointAt: checkpoint?.created_at ?? null };
}
