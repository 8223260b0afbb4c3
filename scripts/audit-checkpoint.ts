import { pathToFileURL } from "node:url";
import { AuditIntegrityError, recordHead } from "../app/audit/checkpoint.server";
import { closeDb, db } from "../app/db.server";
import { describeDbError } from "../db/connection";
import { loadDotEnv } from "./dotenv";

// `npm run audit:checkpoint`: verifies the audit chain from the last signed checkpoint to the head
// and only then signs the head (docs/decisions/031-tamper-evident-audit-log.md). Exit 0 with
// "signed checkpoint at row N" (or nothing new to sign), 1 naming the first bad row (nothing is
// signed, and the alert is raised as for the hourly checkpoint), 2 when the database cannot be used.

type Print = (line: string) => void;

/** The command's work, apart from the process, so a test runs it on its own database. */
export async function auditCheckpoint(out: Print = console.log, err: Print = console.error): Promise<number> {
  try {
    const checkpoint = await recordHead();
    if (checkpoint) {
      out(`signed checkpoint at row ${checkpoint.seq}`);
      return 0;
    }
    const head = await db().selectFrom("audit_chain").select("seq").where("id", "=", 1).executeTakeFirst();
    out(
      Number(head?.seq ?? 0) === 0
        ? "the audit log is empty: nothing to sign"
        : `row ${head!.seq} is already signed: nothing new to sign`,
    );
    return 0;
  } catch (error) {
    if (error instanceof AuditIntegrityError) {
      err(`${error.message}`);
      err("Nothing was signed.");
      return 1;
    }
    err(`audit:checkpoint failed: ${describeDbError(error)}`);
    return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  loadDotEnv();
  process.exitCode = await auditCheckpoint();
  await closeDb();
}
