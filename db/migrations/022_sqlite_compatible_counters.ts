import type { Kysely } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers } from "../counted";
import { COUNTED } from "../counted-tables";

// Older SQLite (Debian 12's shell, Python's module) cannot parse the triggers' `insert … as c` and
// refuses the whole file; operators repair with those tools, so the triggers are recreated without
// the alias (decision 010). PostgreSQL's counters are untouched.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === "postgres") return;
  await db.transaction().execute(async (trx) => {
    await dropCountTriggers(trx, COUNTED);
    await installCountTriggers(trx, COUNTED);
  });
}

export async function down(_db: Kysely<unknown>): Promise<void> {}
