import type { Kysely } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers } from "../counted";
import { COUNTED } from "../counted-tables";

// The counter triggers of 009, 012 and 018 were written as `insert into stat_count as c … do
// update set n = c.n + excluded.n`. The bundled SQLite accepts that, but an older one (3.40:
// Debian 12's `sqlite3` shell, Python's sqlite3 module) cannot parse the alias inside a trigger
// and then refuses to open the file at all ("malformed database schema"). Operators inspect and
// repair the database with exactly those tools, so the schema stays readable by SQLite 3.37 or
// newer: the triggers are recreated in the form db/counted.ts now writes (no alias, the table's
// own name qualifies the old count). They count exactly as before, so nothing is recounted; the
// swap is one transaction, so no write goes uncounted meanwhile.
//
// PostgreSQL's counters are functions whose bodies are parsed when they run; they are untouched.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === "postgres") return;
  await db.transaction().execute(async (trx) => {
    await dropCountTriggers(trx, COUNTED);
    await installCountTriggers(trx, COUNTED);
  });
}

// Going back to the unreadable form helps nobody: the triggers stay as they are (they count the same).
export async function down(_db: Kysely<unknown>): Promise<void> {}
