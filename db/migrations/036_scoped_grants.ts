import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers, recount } from "../counted";
import { ROLE_MEMBERS, ROLE_MEMBERS_018 } from "../counted-tables";

// A grant is global (team_id null) or within one team, may expire, and says who gave it and when
// (decision 044). The old key (user_id, role_id) would forbid `admin` in Sales and in Marketing, so
// grants get their own id; one global grant per role and one per role and team stay unique.
// SQLite cannot drop a primary key: the table is rebuilt there, and its counter triggers with it.

const SQLITE_UUID = `(lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
  substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
  substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))`;

async function sqliteUp(db: Kysely<unknown>) {
  await sql
    .raw(`create table user_role_new (
      id text primary key not null default ${SQLITE_UUID},
      user_id text not null references "user"(id) on delete cascade,
      role_id text not null references role(id) on delete cascade,
      team_id text references team(id) on delete cascade,
      expires_at text,
      granted_by text references "user"(id) on delete set null,
      granted_at text
    )`)
    .execute(db);
  await sql`insert into user_role_new (user_id, role_id) select user_id, role_id from user_role`.execute(db);
  await sql`drop table user_role`.execute(db);
  await sql`alter table user_role_new rename to user_role`.execute(db);
}

async function postgresUp(db: Kysely<unknown>) {
  await sql`alter table user_role drop constraint user_role_pk`.execute(db);
  await sql`alter table user_role add column id text not null default gen_random_uuid()::text`.execute(db);
  await sql`alter table user_role add primary key (id)`.execute(db);
  await sql`alter table user_role add column team_id text references team(id) on delete cascade`.execute(db);
  await sql`alter table user_role add column expires_at timestamptz`.execute(db);
  await sql`alter table user_role add column granted_by text references "user"(id) on delete set null`.execute(
    db,
  );
  await sql`alter table user_role add column granted_at timestamptz`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const body = async (trx: Kysely<unknown>) => {
    await dropCountTriggers(trx, [ROLE_MEMBERS_018]);
    if (dialectOf(trx) === "postgres") await postgresUp(trx);
    else await sqliteUp(trx);
    await sql`create index if not exists user_role_role_idx on user_role (role_id)`.execute(trx);
    await sql`create index user_role_user_idx on user_role (user_id)`.execute(trx);
    await sql`create index user_role_team_idx on user_role (team_id) where team_id is not null`.execute(trx);
    await sql`create unique index user_role_global_uq on user_role (user_id, role_id) where team_id is null`.execute(
      trx,
    );
    await sql`create unique index user_role_team_uq on user_role (user_id, role_id, team_id) where team_id is not null`.execute(
      trx,
    );
    // A role's member count is of those holding it over everyone.
    await installCountTriggers(trx, [ROLE_MEMBERS]);
    await recount(trx, [ROLE_MEMBERS]);
  };
  if (dialectOf(db) === "postgres") await body(db);
  else await db.transaction().execute(body);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from user_role where team_id is not null`.execute(db);
  for (const name of ["user_role_user_idx", "user_role_team_idx", "user_role_global_uq", "user_role_team_uq"])
    await sql.raw(`drop index if exists ${name}`).execute(db);
  await dropCountTriggers(db, [ROLE_MEMBERS]);
  if (dialectOf(db) === "postgres") {
    await sql`alter table user_role drop constraint user_role_pkey`.execute(db);
    for (const column of ["id", "team_id", "expires_at", "granted_by", "granted_at"])
      await sql.raw(`alter table user_role drop column ${column}`).execute(db);
    await sql`alter table user_role add constraint user_role_pk primary key (user_id, role_id)`.execute(db);
    await installCountTriggers(db, [ROLE_MEMBERS_018]);
    await recount(db, [ROLE_MEMBERS_018]);
    return;
  }
  await sql`create table user_role_old (user_id text not null references "user"(id) on delete cascade,
    role_id text not null references role(id) on delete cascade, constraint user_role_pk primary key (user_id, role_id))`.execute(
    db,
  );
  await sql`insert into user_role_old select user_id, role_id from user_role`.execute(db);
  await sql`drop table user_role`.execute(db);
  await sql`alter table user_role_old rename to user_role`.execute(db);
  await sql`create index user_role_role_idx on user_role (role_id)`.execute(db);
  await installCountTriggers(db, [ROLE_MEMBERS_018]);
  await recount(db, [ROLE_MEMBERS_018]);
}
