import type { Position } from "../../../db/keyset";
import { auditRowsFor, auditViewerOf } from "../../access/audit-token-names.server";
import { auditFilters, auditRowsAfter, filteredAudit } from "../../audit/query.server";
import { toCsv } from "../csv";
import { defineTask } from "../definition.server";
import { saveArtifact } from "../repository.server";

const BATCH = 2_000;

// The audit log's filtered view as CSV, built in batches in the background so a large export
// never holds a request open; the owner downloads it from the link in the result.
export const auditExport = defineTask({
  type: "audit.export",
  permission: "log.read",
  // Reads the log and stores its own file: running it again replaces that file with the same rows.
  rerunnable: true,
  // The page's filters, dates checked when the export is asked for rather than when it runs.
  payload: auditFilters
    .partial()
    .nullish()
    .transform((v) => auditFilters.parse(v ?? {})),
  async run(filters, { taskId, userId, signal, progress }) {
    // The rows as the owner may read them now (a super admin's token names for super admins).
    const viewer = await auditViewerOf(userId);
    const { total } = await filteredAudit(filters)
      .select((eb) => eb.fn.countAll<number>().as("total"))
      .executeTakeFirstOrThrow();
    const lines: string[][] = [
      [
        "time",
        "action",
        "actor",
        "target_type",
        "target_id",
        "ip",
        "user_agent",
        "details",
        "impersonator",
        "request_id",
      ],
    ];
    let after: Position | null = null;
    for (;;) {
      signal.throwIfAborted();
      // The page's own keyset walk: each batch is one index range after the last row written.
      const rows = await auditRowsAfter(filters, after, BATCH);
      for (const r of await auditRowsFor(viewer, rows)) {
        lines.push([
          r.created_at,
          r.action,
          r.actor_email ?? "",
          r.target_type ?? "",
          r.target_id ?? "",
          r.ip ?? "",
          r.user_agent ?? "",
          r.details ?? "",
          r.impersonator_email ?? "",
          r.request_id ?? "",
        ]);
      }
      if (rows.length < BATCH) break;
      const last = rows.at(-1)!;
      after = { value: last.created_at, id: last.id };
      progress(
        Math.min(0.99, (lines.length - 1) / Math.max(1, Number(total))),
        `${lines.length - 1} of ${total} rows`,
      );
    }
    const filename = `audit-${new Date().toISOString().slice(0, 10)}.csv`;
    await saveArtifact(taskId, { filename, contentType: "text/csv; charset=utf-8", content: toCsv(lines) });
    return { rows: lines.length - 1, filename, downloadUrl: `/api/tasks/${taskId}/download` };
  },
});
