import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { dropCountTriggers, installCountTriggers, recount } from "../counted";
import { ROLE_MEMBERS_018 as ROLE_MEMBERS } from "../counted-tables";

// Lists and pages whose cost grew with the data (decision 023): role member counters, and the log's
// action index carrying the actor so an actor filter is tested on index entries.
const ACTION_ACTOR = ["action", "created_at", "id", "actor_email", "actor_id"];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("audit_log_action_actor_idx").on("audit_log").columns(ACTION_ACTOR).execute();
  await db.schema.dropIndex("audit_log_action_created_id_idx").ifExists().execute();
  const body = async (trx: Kysely<unknown>) => {
    await dropCountTriggers(trx, [ROLE_MEMBERS]);
    await installCountTriggers(trx, [ROLE_MEMBERS]);
    await recount(trx, [ROLE_MEMBERS]);
  };
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
