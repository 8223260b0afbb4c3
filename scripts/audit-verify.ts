import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { evidenceSeals, verifyAuditChain } from "../app/audit/verify.server";
import { closeDb } from "../app/db.server";
import { describeDbError } from "../db/connection";
import { loadDotEnv } from "./dotenv";

// `npm run audit:verify`: walks the audit log's hash chain and its signed checkpoints
// (docs/decisions/031-tamper-evident-audit-log.md). Exit 0 with "N rows intact up to <time>",
// 1 naming the first row that does not match, 2 when the database cannot be read.
// `-- --evidence FILE` also checks an access review's evidence file against the SHA-256 its closing
// row sealed (exit 1 when no intact row records that hash: the file is not the one recorded).
loadDotEnv();
const at = process.argv.indexOf("--evidence");
const evidence = at > 0 ? process.argv[at + 1] : undefined;
try {
  const result = await verifyAuditChain({
    onProgress: (rows, total) => {
      if (process.stderr.isTTY) process.stderr.write(`\r${rows} of ${total} rows…`);
    },
  });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  if (result.ok) {
    console.log(`${result.rows} rows intact up to ${result.upTo ?? "(the log is empty)"} (${result.ms} ms)`);
    if (evidence) {
      const sha256 = createHash("sha256").update(readFileSync(evidence)).digest("hex");
      const [seal] = await evidenceSeals(sha256);
      if (seal)
        console.log(
          `${evidence}: SHA-256 ${sha256} sealed by audit row ${seal.seq} (${seal.created_at}, review ${seal.target_id})`,
        );
      else {
        console.error(
          `${evidence}: SHA-256 ${sha256} is in no access_review.closed row: not the file recorded`,
        );
        process.exitCode = 1;
      }
    }
  } else {
    console.error(`audit log NOT intact (${result.problem}): ${result.message}`);
    console.error(`${result.rows} rows before it verified.`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`audit:verify failed: ${describeDbError(error)}`);
  process.exitCode = 2;
} finally {
  await closeDb();
}
