import { verifyAuditChain } from "../app/audit/verify.server";
import { closeDb } from "../app/db.server";
import { describeDbError } from "../db/connection";
import { loadDotEnv } from "./dotenv";

// `npm run audit:verify`: walks the audit log's hash chain and its signed checkpoints
// (docs/decisions/031-tamper-evident-audit-log.md). Exit 0 with "N rows intact up to <time>",
// 1 naming the first row that does not match, 2 when the database cannot be read.
loadDotEnv();
try {
  const result = await verifyAuditChain({
    onProgress: (rows, total) => {
      if (process.stderr.isTTY) process.stderr.write(`\r${rows} of ${total} rows…`);
    },
  });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  if (result.ok) {
    console.log(`${result.rows} rows intact up to ${result.upTo ?? "(the log is empty)"} (${result.ms} ms)`);
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
