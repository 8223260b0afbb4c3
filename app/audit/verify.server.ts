import { db, type Executor } from "../db.server";
import { chainHash, GENESIS_HASH, KEYED } from "./chain";
import { type Checkpoint, checkpointSigned, keyedLinkChecker } from "./signing.server";

// Walks the chain a batch at a time, so a million rows verify in one batch's memory, and stops at
// the first row that does not match (decision 031).

const BATCH = 5_000;

type Problem =
  | "edited"
  | "deleted"
  | "inserted"
  | "reordered"
  | "outside the chain"
  | "not signed"
  | "checkpoint forged"
  | "rewritten";

const REORDER_WINDOW = 16;

export type Verification =
  | { ok: true; rows: number; upTo: string | null; ms: number }
  | {
      ok: false;
      rows: number;
      problem: Problem;
      seq: number | null;
      id: string | null;
      message: string;
      ms: number;
    };

export async function verifyAuditChain(
  options: {
    database?: Executor;
    onProgress?: (rows: number, total: number) => void;
    signal?: AbortSignal;
    /** Only from the newest signed checkpoint: the rows before it were verified when it was signed. */
    sinceLastCheckpoint?: boolean;
  } = {},
): Promise<Verification> {
  const database = options.database ?? db();
  const started = performance.now();
  let rows = 0;
  const fail = (problem: Problem, row: { seq: number | null; id: string | null } | null, message: string) =>
    ({
      ok: false,
      rows,
      problem,
      seq: row?.seq ?? null,
      id: row?.id ?? null,
      message,
      ms: Math.round(performance.now() - started),
    }) as const;

  const checkpoints = await database.selectFrom("audit_checkpoint").selectAll().orderBy("seq").execute();
  const forged = checkpoints.find((c) => !checkpointSigned(c as Checkpoint));
  if (forged)
    return fail(
      "checkpoint forged",
      null,
      `The checkpoint of ${forged.created_at} (row #${forged.seq}) is not signed with the audit signing key.`,
    );
  const heads = new Map<number, Checkpoint[]>();
  for (const c of checkpoints.filter((c) => c.kind === "head")) {
    const seq = Number(c.seq);
    heads.set(seq, [...(heads.get(seq) ?? []), c as Checkpoint]);
  }
  const starts = checkpoints.filter((c) => c.kind === "start");
  const lastSignedHead = [...heads.keys()].reduce((max, seq) => Math.max(max, seq), 0);
  const from = options.sinceLastCheckpoint
    ? checkpoints.reduce<number | null>((max, c) => Math.max(max ?? 0, Number(c.seq)), null)
    : null;
  const keyedLink = keyedLinkChecker();

  const loose = await database
    .selectFrom("audit_log")
    .select(["id", "created_at"])
    .where("seq", "is", null)
    .limit(1)
    .executeTakeFirst();
  if (loose)
    return fail(
      "outside the chain",
      { seq: null, id: loose.id },
      `Row ${loose.id} (${loose.created_at}) has no place in the chain: it was inserted outside the application.`,
    );

  // Counted only for a progress bar: under the head's lock a count would hold every audited write.
  const total = options.onProgress
    ? (
        await database
          .selectFrom("audit_log")
          .select((eb) => eb.fn.countAll<number>().as("total"))
          .executeTakeFirstOrThrow()
      ).total
    : 0;

  type Link = { seq: number; id: string; hash: string; keyed: boolean };
  let previous: Link | null = null;
  let beforePrevious: Link | null = null;
  let upTo: string | null = null;
  // Writers go on meanwhile: rows committed during the walk are walked too.
  let head: { seq: number; hash: string } | undefined;
  for (let pass = 0; pass < 5; pass++) {
    for (;;) {
      options.signal?.throwIfAborted();
      let query = database.selectFrom("audit_log").selectAll().orderBy("seq").limit(BATCH);
      if (previous) query = query.where("seq", ">", previous.seq);
      else if (from !== null) query = query.where("seq", ">=", from);
      const batch = await query.execute();
      for (const raw of batch) {
        const row = { ...raw, seq: Number(raw.seq) };
        const keyed = Number(row.hash_version) === KEYED;
        const consistent = (seq: number) =>
          row.prev_hash !== null &&
          row.hash !== null &&
          (keyed
            ? keyedLink(row.prev_hash, { ...row, seq }, row.hash)
            : row.hash === chainHash(row.prev_hash, { ...row, seq }));
        if (!previous) {
          const signedStart = starts.some((s) => Number(s.seq) === row.seq && s.hash === row.prev_hash);
          const signedHead = from !== null && row.seq === from && heads.has(from);
          if (!(row.seq === 1 && row.prev_hash === GENESIS_HASH) && !signedStart && !signedHead)
            return fail(
              "deleted",
              row,
              `Rows before #${row.seq} are missing: the chain starts there without a signed retention checkpoint.`,
            );
        } else if (row.seq !== previous.seq + 1) {
          return fail(
            "deleted",
            row,
            `Row #${previous.seq + 1} is missing (deleted): #${previous.seq} is followed by #${row.seq}.`,
          );
        } else if (row.prev_hash !== previous.hash) {
          // Links past its predecessor to the one before: the predecessor was slipped in.
          if (beforePrevious && row.prev_hash === beforePrevious.hash)
            return fail(
              "inserted",
              previous,
              `Row #${previous.seq} (${previous.id}) was inserted: row #${row.seq} links to row #${beforePrevious.seq} before it.`,
            );
          // Intact itself but no longer linked: the predecessor was changed and its hash recomputed.
          if (consistent(row.seq))
            return fail(
              "edited",
              previous,
              `Row #${previous.seq} (${previous.id}) was changed and its hash recomputed: row #${row.seq} no longer links to it.`,
            );
        }
        if (!consistent(row.seq)) {
          for (let d = 1; d <= REORDER_WINDOW; d++)
            for (const other of [row.seq - d, row.seq + d])
              if (other > 0 && consistent(other))
                return fail(
                  "reordered",
                  row,
                  `Row #${row.seq} (${row.id}) was written as row #${other}: rows were reordered.`,
                );
          return fail(
            "edited",
            row,
            `Row #${row.seq} (${row.id}, ${row.created_at}) was changed after it was written, or written without the audit signing key.`,
          );
        }
        if (!keyed && (previous?.keyed || row.seq > lastSignedHead))
          return fail(
            "not signed",
            row,
            `Row #${row.seq} (${row.id}, ${row.created_at}) is not signed with the audit signing key, and no checkpoint covers it: it was added or changed outside the application.`,
          );
        for (const c of heads.get(row.seq) ?? [])
          if (c.hash !== row.hash)
            return fail(
              "rewritten",
              row,
              `Row #${row.seq} (${row.id}) differs from the checkpoint signed ${c.created_at}: the chain was rewritten up to it.`,
            );
        beforePrevious = previous;
        previous = { seq: row.seq, id: row.id, hash: row.hash!, keyed };
        upTo = row.created_at;
        rows++;
      }
      options.onProgress?.(rows, Number(total));
      if (batch.length < BATCH) break;
    }
    head = await database
      .selectFrom("audit_chain")
      .select(["seq", "hash"])
      .where("id", "=", 1)
      .executeTakeFirst();
    if (!head || Number(head.seq) <= (previous?.seq ?? 0)) break;
  }

  const lastSeq = previous?.seq ?? (from !== null ? from - 1 : 0);
  const lastSigned = checkpoints.filter((c) => c.kind === "head").at(-1);
  if (lastSigned && Number(lastSigned.seq) > lastSeq)
    return fail(
      "deleted",
      previous,
      `Rows after #${lastSeq} are missing: the checkpoint signed ${lastSigned.created_at} names row #${lastSigned.seq}.`,
    );

  if (!head) return fail("deleted", previous, "The chain's head (table audit_chain) is missing.");
  if (Number(head.seq) > lastSeq)
    return fail(
      "deleted",
      previous,
      `Rows after #${lastSeq} are missing: the chain's head is row #${head.seq}.`,
    );
  if (previous && Number(head.seq) === lastSeq && head.hash !== previous.hash)
    return fail(
      "edited",
      previous,
      `Row #${previous.seq} (${previous.id}) was changed and its hash recomputed: the chain's head holds another hash.`,
    );
  if (Number(head.seq) < lastSeq) {
    const added = await database
      .selectFrom("audit_log")
      .select(["seq", "id"])
      .where("seq", "=", Number(head.seq) + 1)
      .executeTakeFirstOrThrow();
    return fail(
      "inserted",
      { seq: Number(added.seq), id: added.id },
      `Row #${added.seq} (${added.id}) and any after it were added outside the application: the chain's head is row #${head.seq}.`,
    );
  }
  return { ok: true, rows, upTo, ms: Math.round(performance.now() - started) };
}

/**
 * The audit rows that sealed a file of evidence (an access review's CSV) by its SHA-256. With the
 * chain intact, a match says the file is byte for byte the one recorded; no match, that it is not.
 */
export async function evidenceSeals(sha256: string) {
  const rows = await db()
    .selectFrom("audit_log")
    .select(["seq", "created_at", "target_id", "details"])
    .where("action", "=", "access_review.closed")
    .orderBy("seq")
    .execute();
  // One row per closed review: few enough to read whole, on both databases' JSON columns alike.
  return rows.filter((r) => {
    const details: unknown = r.details;
    try {
      const parsed = (typeof details === "string" ? JSON.parse(details) : details) as { sha256?: unknown };
      return parsed?.sha256 === sha256;
    } catch {
      return false;
    }
  });
}
