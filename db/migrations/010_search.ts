import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";

// Substring search (decision 011). Written out rather than imported, so this migration stays what it was.
const COLUMNS: Record<string, string[]> = {
  user: ["name", "email"],
  team: ["name"],
  audit_log: ["actor_email", "target_id"],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === "postgres") await upPostgres(db);
  else await upSqlite(db);
}

/** A trigram index per column, so a search of one column does not wade through the others' trigrams. */
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
      await sql.raw(`insert into ${fts}(${fts}) values ('rebuild')`).execute(db);
      await sql.raw(`insert into ${fts}(${fts}) values ('optimize')`).execute(db);
    }
  }
}

/** The extension goes to `public`: one made inside a per-test schema would go when that schema is dropped. */
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
