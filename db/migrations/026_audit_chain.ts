import { type Kysely, sql } from "kysely";
import { type ChainedFields, chainHash, GENESIS_HASH } from "../../app/audit/chain";
import { columnTypes } from "../column-types";
import { dialectOf } from "../connection";

// The audit log becomes a hash chain (decision 031); the rows written before are chained here, oldest first.
const BATCH = 2_000;

type Row = Omit<ChainedFields, "seq">;
/** As this migration finds and leaves them: db/schema.ts may have moved on. */
type Tables = {
  audit_log: Row & { seq: number | null; prev_hash: string | null; hash: string | null };
  audit_chain: { id: number; seq: number; hash: string };
};

export async function up(db: Kysely<unknown>): Promise<void> {
  const data = db.withTables<Tables>();
  const t = columnTypes(db);
  const pg = dialectOf(db) === "postgres";
  const seqType = pg ? "bigint" : "integer";
  await db.schema.alterTable("audit_log").addColumn("seq", seqType).execute();
  await db.schema.alterTable("audit_log").addColumn("prev_hash", "text").execute();
  await db.schema.alterTable("audit_log").addColumn("hash", "text").execute();
  await db.schema
    .createTable("audit_chain")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("seq", seqType, (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("last_verification", "text")
    .execute();
  await db.schema
    .createTable("audit_checkpoint")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("seq", seqType, (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("signature", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_checkpoint_seq_idx").on("audit_checkpoint").columns(["seq"]).execute();

  // The walk's own index, dropped after: each batch is one index range, not a sort of the rest.
  await db.schema
    .createIndex("audit_log_chain_walk_idx")
    .on("audit_log")
    .columns(["created_at", "id"])
    .execute();
  let seq = 0;
  let prev = GENESIS_HASH;
  let after: { created_at: string; id: string } | null = null;
  for (;;) {
    let query = data.selectFrom("audit_log").selectAll().orderBy("created_at").orderBy("id").limit(BATCH);
    if (after) {
      const { created_at, id } = after;
      query = query.where(sql<boolean>`(created_at, id) > (${created_at}, ${id})`);
    }
    const rows: Row[] = await query.execute();
    const links = rows.map((row) => {
      seq += 1;
      const hash = chainHash(prev, { ...row, seq });
      const link = sql`(${row.id}, cast(${seq} as bigint), ${prev}, ${hash})`;
      prev = hash;
      return link;
    });
    // VALUES names its columns column1..4 on both engines.
    if (links.length)
      await sql`update audit_log set seq = v.column2, prev_hash = v.column3, hash = v.column4
        from (values ${sql.join(links)}) as v where audit_log.id = v.column1`.execute(db);
    if (rows.length < BATCH) break;
    after = rows.at(-1)!;
  }
  await db.schema.dropIndex("audit_log_chain_walk_idx").execute();
  await data.insertInto("audit_chain").values({ id: 1, seq, hash: prev }).execute();
  await db.schema.createIndex("audit_log_seq_idx").unique().on("audit_log").column("seq").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("audit_log_seq_idx").ifExists().execute();
  await db.schema.dropTable("audit_checkpoint").ifExists().execute();
  await db.schema.dropTable("audit_chain").ifExists().execute();
  for (const column of ["hash", "prev_hash", "seq"])
    await db.schema.alterTable("audit_log").dropColumn(column).execute();
}
