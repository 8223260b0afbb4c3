import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers, recount, STAT_TABLE } from "../counted";
import { COUNTED_009 as COUNTED, COUNTED as EVERY_COUNTED } from "../counted-tables";

// The overview's numbers as counters (decision 010).
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  // The recount must see the same rows the triggers start counting after; SQLite's migrator uses no transaction.
  const body = async (trx: Kysely<unknown>) => {
    let table = trx.schema
      .createTable(STAT_TABLE)
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("n", pg ? "bigint" : "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("stat_count_pk", ["scope", "day", "name"]);
    // SQLite: without rowid, so a counter's upsert writes one page, not two.
    if (!pg) table = table.modifyEnd(sql`without rowid`);
    await table.execute();
    // Triggers first: on PostgreSQL that locks writers out until commit, so no change falls between.
    await installCountTriggers(trx, COUNTED);
    await recount(trx, COUNTED);
  };
  if (pg) await body(db);
  else await db.transaction().execute(body);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Every counter trigger goes with the table, later migrations' too.
  await dropCountTriggers(db, EVERY_COUNTED);
  await db.schema.dropTable(STAT_TABLE).ifExists().execute();
}
