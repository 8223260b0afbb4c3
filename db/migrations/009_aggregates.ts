import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers, recount, STAT_TABLE } from "../counted";
import { COUNTED_009 as COUNTED, COUNTED as EVERY_COUNTED } from "../counted-tables";

// The overview's numbers as counters (docs/decisions/010-maintained-aggregates.md), so the
// dashboard reads a few dozen rows whatever the size of the tables.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  // PostgreSQL runs each migration in a transaction; SQLite's migrator does not, and the
  // recount must see the same rows the triggers start counting after.
  const body = async (trx: Kysely<unknown>) => {
    let table = trx.schema
      .createTable(STAT_TABLE)
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("n", pg ? "bigint" : "integer", (c) => c.notNull())
      // scope then day: totals are (scope, ''), a chart is (scope, day >= since), each one range.
      .addPrimaryKeyConstraint("stat_count_pk", ["scope", "day", "name"]);
    // SQLite: one b-tree keyed by the primary key instead of a rowid table plus its index, so a
    // counter's upsert writes one page, not two.
    if (!pg) table = table.modifyEnd(sql`without rowid`);
    await table.execute();
    // Triggers first: on PostgreSQL creating one locks its table against writers until commit,
    // so nothing is written between the recount and the first counted change.
    await installCountTriggers(trx, COUNTED);
    await recount(trx, COUNTED);
  };
  if (pg) await body(db);
  else await db.transaction().execute(body);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The table goes, so every counter trigger goes with it, later migrations' too.
  await dropCountTriggers(db, EVERY_COUNTED);
  await db.schema.dropTable(STAT_TABLE).ifExists().execute();
}
