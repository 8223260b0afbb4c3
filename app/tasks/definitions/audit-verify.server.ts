import { z } from "zod";
import { audit } from "../../audit/audit.server";
import { recordVerification } from "../../audit/integrity.server";
import { verifyAuditChain } from "../../audit/verify.server";
import { db } from "../../db.server";
import { defineTask } from "../definition.server";

// Walks the audit chain on demand (Settings → System), with progress, and records the outcome as
// an audit row of its own (the verification is part of the log it vouches for) and beside the
// chain's head, where the page reads it (docs/decisions/031-tamper-evident-audit-log.md).
export const auditVerify = defineTask({
  type: "audit.verify",
  permission: "settings.manage",
  // Only reads the log (and records what it found): running it again is another verification.
  rerunnable: true,
  payload: z
    .object({})
    .strict()
    .nullish()
    .transform(() => ({})),
  // A million rows take about a minute on a small machine; the default bound would cut it short.
  timeoutMs: 30 * 60_000,
  async run(_payload, { userId, signal, progress }) {
    const result = await verifyAuditChain({
      signal,
      onProgress: (rows, total) =>
        progress(Math.min(0.99, rows / Math.max(1, total)), `${rows} of ${total} rows`),
    });
    const actor = await db()
      .selectFrom("user")
      .select(["id", "email"])
      .where("id", "=", userId)
      .executeTakeFirst();
    const { ms: _ms, ...outcome } = result;
    await audit(
      { request: new Request("http://internal/audit-verify", { headers: { "User-Agent": "audit-verify" } }) },
      {
        action: "audit.verify",
        actor: actor ?? null,
        target: { type: "audit_log", id: null },
        details: outcome,
      },
    );
    await recordVerification(outcome);
    return result;
  },
});
