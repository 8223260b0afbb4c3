import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers, recount } from "../counted";
import { ROLE_MEMBERS } from "../counted-tables";

// Lists and pages whose cost grew with the data (docs/decisions/023-list-paths.md).
//
// The access page's "N people" per role: counted by triggers (decision 010) instead of grouping
// every user_role row on each view. It drops whatever triggers of this spec may be there
// before installing and recounting, so it can run again safely.
//
// The log filtered by action and actor: the action's index range also carries the actor's email
// and id, so a common actor text is tested on index entries while walking the action newest
// first, without reading each log row. It replaces 011's (action, created_at, id), its prefix.
const ACTION_ACTOR = ["action", "created_at", "id", "actor_email", "actor_id"];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("audit_log_action_actor_idx").on("audit_log").columns(ACTION_ACTOR).execute();
  await db.schema.dropIndex("audit_log_action_created_id_idx").ifExists().execute();
  const body = async (trx: Kysely<unknown>) => {
    await dropCountTriggers(trx, [ROLE_MEMBERS]);
    await installCountTriggers(trx, [ROLE_MEMBERS]);
    await recount(trx, [ROLE_MEMBERS]);
  };
  // PostgreSQL runs each migration in a transaction; SQLite's migrator does not.
  if (dialectOf(db) === "postgres") await body(db);
  else await db.transaction().execute(body);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("audit_log_action_created_id_idx")
    .on("audit_log")
    .columns(["action", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("audit_log_action_actor_idx").execute();
  await dropCountTriggers(db, [ROLE_MEMBERS]);
  await sql`delete from stat_count where name like 'roles.%'`.execute(db);
}
