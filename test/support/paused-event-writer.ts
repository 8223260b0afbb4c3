import { createDbEventLog } from "../../app/events/event-log.server";
import { createDb } from "../../db/connection";

// `node --import tsx test/support/paused-event-writer.ts` with DATABASE_URL and USER_ID: a peer
// that writes one event through the app's own event log and connection settings, and stops itself
// (SIGSTOP, as a paused VM would) inside the locked section, after the lock and the insert and
// before the commit. Deterministic: the announce callback runs inside that transaction.
// test/paused-peer.test.ts starts it early (loading takes seconds) and writes a line to its stdin
// when the write should begin; it finds the lock held, later continues and kills it.

const db = createDb(process.env.DATABASE_URL!, { poolSize: 2 });
const log = createDbEventLog(() => db);
await new Promise((go) => process.stdin.once("data", go));

await log
  .append(
    [
      {
        type: "task-progress",
        userId: process.env.USER_ID!,
        taskId: "held",
        status: "processing",
        progress: 0,
      },
    ],
    () => {
      process.kill(process.pid, "SIGSTOP");
      return { channel: "paused-peer", payloads: [] };
    },
  )
  .then(
    () => console.log("committed"),
    (error) => console.log(`append failed: ${(error as Error).message}`),
  );
await db.destroy();
process.exit(0);
