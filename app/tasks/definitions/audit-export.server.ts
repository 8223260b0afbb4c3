import { z } from "zod";
import type { Position } from "../../../db/keyset";
import { auditRowsFor, auditViewerOf } from "../../access/audit-token-names.server";
import { auditFilters, auditRowsAfter, filteredAudit } from "../../audit/query.server";
import { auditRowNames } from "../../audit/view.server";
import { toCsv } from "../csv";
import { defineTask } from "../definition.server";
import { saveArtifact } from "../repository.server";

const BATCH = 2_000;

/** CSV for people, JSON Lines for a SIEM. */
const exportRequest = auditFilters.extend({ format: z.enum(["csv", "jsonl"]).default("csv") });

type Row = Awaited<ReturnType<typeof auditRowsAfter>>[number];

const CSV_HEADER = [
  "time",
  "action",
  "actor",
  "actor_name",
  "target_type",
  "target_id",
  "target_name",
  "ip",
  "user_agent",
  "details",
  "impersonator",
  "request_id",
  "seq",
  "prev_hash",
  "hash",
];

type Names = Awaited<ReturnType<typeof auditRowNames>>;

function csvLine(r: Row, names: Names): string[] {
  return [
    r.created_at,
    r.action,
    r.actor_email ?? "",
    names.actor(r) ?? "",
    r.target_type ?? "",
    r.target_id ?? "",
    names.target(r) ?? "",
    r.ip ?? "",
    r.user_agent ?? "",
    r.details ?? "",
    r.impersonator_email ?? "",
    r.request_id ?? "",
    r.seq == null ? "" : String(r.seq),
    r.prev_hash ?? "",
    r.hash ?? "",
  ];
}

/** So a SIEM can index it and recompute `hash` from `prev_hash` (app/audit/chain.ts). */
function jsonLine(r: Row, names: Names): string {
  let details: unknown = r.details;
  try {
    details = r.details === null ? null : JSON.parse(r.details);
  } catch {}
  return JSON.stringify({
    seq: r.seq == null ? null : Number(r.seq),
    id: r.id,
    created_at: r.created_at,
    action: r.action,
    actor_id: r.actor_id,
    actor_email: r.actor_email,
    actor_name: names.actor(r),
    target_type: r.target_type,
    target_id: r.target_id,
    target_name: names.target(r),
    details,
    ip: r.ip,
    user_agent: r.user_agent,
    impersonator_id: r.impersonator_id,
    impersonator_email: r.impersonator_email,
    request_id: r.request_id,
    prev_hash: r.prev_hash,
    hash: r.hash,
    hash_version: r.hash_version ?? 1,
  });
}

// Built in batches in the background, so a large export never holds a request open.
export const auditExport = defineTask({
  type: "audit.export",
  permission: "log.read",
  // Running it again replaces its own file with the same rows.
  rerunnable: true,
  payload: exportRequest
    .partial()
    .nullish()
    .transform((v) => exportRequest.parse(v ?? {})),
  async run({ format, ...filters }, { taskId, userId, signal, progress }) {
    // As the owner may read them now.
    const viewer = await auditViewerOf(userId);
    const { total } = await filteredAudit(filters)
      .select((eb) => eb.fn.countAll<number>().as("total"))
      .executeTakeFirstOrThrow();
    const csv: string[][] = [CSV_HEADER];
    const json: string[] = [];
    let written = 0;
    let after: Position | null = null;
    for (;;) {
      signal.throwIfAborted();
      const rows = await auditRowsAfter(filters, after, BATCH);
      const readable = await auditRowsFor(viewer, rows);
      // Names as they are now, beside the ids the row keeps: a reader of the file knows who.
      // A file for any reader: roles by their labels as stored.
      const names = await auditRowNames(readable);
      for (const r of readable) {
        if (format === "jsonl") json.push(jsonLine(r, names));
        else csv.push(csvLine(r, names));
      }
      written += rows.length;
      if (rows.length < BATCH) break;
      const last = rows.at(-1)!;
      after = { value: last.created_at, id: last.id };
      progress(Math.min(0.99, written / Math.max(1, Number(total))), `${written} of ${total} rows`);
    }
    const filename = `audit-${new Date().toISOString().slice(0, 10)}.${format}`;
    await saveArtifact(
      taskId,
      format === "jsonl"
        ? {
            filename,
            contentType: "application/x-ndjson; charset=utf-8",
            content: json.map((l) => `${l}\n`).join(""),
          }
        : { filename, contentType: "text/csv; charset=utf-8", content: toCsv(csv) },
    );
    return { rows: written, filename, downloadUrl: `/api/tasks/${taskId}/download` };
  },
});
