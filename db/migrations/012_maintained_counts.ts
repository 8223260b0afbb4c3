import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers, recount, STAT_TABLE } from "../counted";
import { COUNTED, COUNTED_012 } from "../counted-tables";

// Member and read counts as maintained counters, and `team_member.member_name` kept by triggers, so
// team and broadcast pages cost the same at any size (decision 016).

const NAME_INDEX = "team_member_team_name_idx";

/** SQLite: a trigger cannot change NEW, so the copy is written after the row. */
const SQLITE_NAME_TRIGGERS = [
  `create trigger team_member_name_insert after insert on team_member begin
  update team_member set member_name = coalesce((select name from "user" where id = NEW.user_id), '')
    where team_id = NEW.team_id and user_id = NEW.user_id;
end`,
  `create trigger team_member_name_move after update of user_id on team_member begin
  update team_member set member_name = coalesce((select name from "user" where id = NEW.user_id), '')
    where team_id = NEW.team_id and user_id = NEW.user_id;
end`,
  `create trigger team_member_name_rename after update of name on "user" when OLD.name is not NEW.name begin
  update team_member set member_name = NEW.name where user_id = NEW.id;
end`,
];

function postgresNameStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `create function team_member_name_row() returns trigger language plpgsql as $fn$
begin
  NEW.member_name := coalesce((select name from ${s}."user" where id = NEW.user_id), '');
  return NEW;
end $fn$`,
    `create trigger team_member_name_row before insert or update of user_id on team_member
  for each row execute function team_member_name_row()`,
    `create function team_member_name_rename() returns trigger language plpgsql as $fn$
begin
  update ${s}.team_member set member_name = NEW.name where user_id = NEW.id;
  return null;
end $fn$`,
    `create trigger team_member_name_rename after update of name on "user"
  for each row when (OLD.name is distinct from NEW.name) execute function team_member_name_rename()`,
  ];
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  // As 009: each set of triggers before its backfill, in one transaction on both engines.
  const body = async (trx: Kysely<unknown>) => {
    await trx.schema
      .alterTable("team_member")
      .addColumn("member_name", "text", (c) => c.notNull().defaultTo(""))
      .execute();
    if (pg) {
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(trx)).rows[0]!.s;
      for (const statement of postgresNameStatements(schema)) await sql.raw(statement).execute(trx);
    } else {
      for (const statement of SQLITE_NAME_TRIGGERS) await sql.raw(statement).execute(trx);
    }
    await sql`update team_member set member_name = coalesce((select name from "user" where "user".id = team_member.user_id), '')`.execute(
      trx,
    );
    await trx.schema
      .createIndex(NAME_INDEX)
      .on("team_member")
      .columns(["team_id", "member_name", "user_id"])
      .execute();
    await installCountTriggers(trx, COUNTED_012);
    await recount(trx, COUNTED_012);
  };
  if (pg) await body(db);
  else await db.transaction().execute(body);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  const body = async (trx: Kysely<unknown>) => {
    await trx.schema.dropIndex(NAME_INDEX).ifExists().execute();
    if (pg) {
      await sql`drop trigger if exists team_member_name_row on team_member`.execute(trx);
      await sql`drop trigger if exists team_member_name_rename on "user"`.execute(trx);
      await sql`drop function if exists team_member_name_row()`.execute(trx);
      await sql`drop function if exists team_member_name_rename()`.execute(trx);
    } else {
      for (const name of ["team_member_name_insert", "team_member_name_move", "team_member_name_rename"])
        await sql.raw(`drop trigger if exists ${name}`).execute(trx);
    }
    // SQLite's DROP COLUMN re-parses every trigger and rejects `insert … as c`, so they step aside meanwhile.
    await dropCountTriggers(trx, pg ? COUNTED_012 : COUNTED);
    await trx.schema.alterTable("team_member").dropColumn("member_name").execute();
    if (!pg)
      await installCountTriggers(
        trx,
        COUNTED.filter((spec) => !COUNTED_012.includes(spec)),
      );
    for (const spec of COUNTED_012)
      await sql`delete from ${sql.table(STAT_TABLE)} where name like ${`${spec.prefix}%`}`.execute(trx);
  };
  if (pg) await body(db);
  else await db.transaction().execute(body);
}
