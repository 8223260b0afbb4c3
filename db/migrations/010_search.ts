import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";

// Substring search on an index (docs/decisions/011-indexed-substring-search.md): the columns
// db/like.ts searches with searchText. Written out here rather than imported, so this
// migration stays what it was when a later one changes the list.
const COLUMNS: Record<string, string[]> = {
  user: ["name", "email"],
  team: ["name"],
  audit_log: ["actor_email", "target_id"],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === "postgres") await upPostgres(db);
  else await upSqlite(db);
}

/**
 * An FTS5 trigram index per column (one per table would make a search of one column wade
 * through the others' common trigrams), with the table itself as its content (nothing is stored
 * twice), kept in step by triggers. The tables have text primary keys and so an implicit rowid,
 * which is what the index points at. columnsize=0: no ranking, so no per-row sizes to keep.
 */
async function upSqlite(db: Kysely<unknown>) {
  for (const [table, columns] of Object.entries(COLUMNS)) {
    for (const column of columns) {
      const fts = `${table}_${column}_search`;
      const remove = `insert into ${fts}(${fts}, rowid, ${column}) values ('delete', old.rowid, old.${column});`;
      const add = `insert into ${fts}(rowid, ${column}) values (new.rowid, new.${column});`;
      await sql
        .raw(
          `create virtual table ${fts} using fts5(${column}, content='${table}', content_rowid='rowid', tokenize='trigram', columnsize=0)`,
        )
        .execute(db);
      await sql.raw(`create trigger ${fts}_insert after insert on "${table}" begin ${add} end`).execute(db);
      await sql
        .raw(`create trigger ${fts}_delete after delete on "${table}" begin ${remove} end`)
        .execute(db);
      await sql
        .raw(
          `create trigger ${fts}_update after update of ${column} on "${table}" begin ${remove} ${add} end`,
        )
        .execute(db);
      // Existing rows, then one segment of them (a rebuild of a large table leaves many).
      await sql.raw(`insert into ${fts}(${fts}) values ('rebuild')`).execute(db);
      await sql.raw(`insert into ${fts}(${fts}) values ('optimize')`).execute(db);
    }
  }
}

/**
 * pg_trgm GIN indexes on exactly the expressions searched (`lower(col)`), which the existing
 * `lower(col) like '%…%' escape '\'` uses as it is. The extension goes to `public` (or stays
 * wherever it already is): an extension made inside a per-test or per-tenant schema would go
 * when that schema is dropped.
 */
async function upPostgres(db: Kysely<unknown>) {
  await sql`create extension if not exists pg_trgm with schema public`.execute(db);
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm'`.execute(db);
  const opclass = `"${rows[0]!.schema.replaceAll('"', '""')}".gin_trgm_ops`;
  for (const [table, columns] of Object.entries(COLUMNS)) {
    for (const column of columns) {
      await sql
        .raw(`create index ${table}_${column}_trgm_idx on "${table}" using gin (lower(${column}) ${opclass})`)
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === "postgres") {
    for (const [table, columns] of Object.entries(COLUMNS))
      for (const column of columns)
        await sql.raw(`drop index if exists ${table}_${column}_trgm_idx`).execute(db);
    return;
  }
  for (const [table, columns] of Object.entries(COLUMNS)) {
    for (const column of columns) {
      const fts = `${table}_${column}_search`;
      for (const suffix of ["insert", "delete", "update"])
        await sql.raw(`drop trigger if exists ${fts}_${suffix}`).execute(db);
      await sql.raw(`drop table if exists ${fts}`).execute(db);
    }
  }
}
