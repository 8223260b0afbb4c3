import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Teams and members, plus the indexes the users list and audit log filters need at 10k/100k rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("team")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("team_member")
    .addColumn("team_id", "text", (c) => c.notNull().references("team.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("team_role", "text", (c) => c.notNull().defaultTo("member"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("team_member_pk", ["team_id", "user_id"])
    .execute();
  await db.schema.createIndex("team_member_user_idx").on("team_member").column("user_id").execute();
  await db.schema.createIndex("user_created_idx").on("user").column("created_at").execute();
  await db.schema.createIndex("user_name_idx").on("user").column("name").execute();
  await db.schema
    .createIndex("audit_log_actor_created_idx")
    .on("audit_log")
    .columns(["actor_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("audit_log_actor_created_idx").ifExists().execute();
  await db.schema.dropIndex("user_name_idx").ifExists().execute();
  await db.schema.dropIndex("user_created_idx").ifExists().execute();
  await db.schema.dropTable("team_member").ifExists().execute();
  await db.schema.dropTable("team").ifExists().execute();
}
