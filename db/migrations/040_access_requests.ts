import { type Kysely, sql } from "kysely";
import { columnTypes } from "../column-types";

// Access requests (docs/decisions/047-access-requests.md): a role an admin marks requestable, for
// at most max_request_hours, may be asked for; a decider approves (a grant that expires after the
// requested hours) or denies. One pending request per person, role and scope.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable("role")
    .addColumn("requestable", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("role").addColumn("max_request_hours", "integer").execute();
  await db.schema
    .createTable("access_request")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("role_id", "text", (c) => c.notNull().references("role.id").onDelete("cascade"))
    .addColumn("team_id", "text", (c) => c.references("team.id").onDelete("cascade"))
    .addColumn("hours", "integer", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    // pending | approved | denied | expired
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("decided_by", "text", (c) => c.references("user.id").onDelete("set null"))
    .addColumn("decided_at", t.timestamp)
    .addColumn("comment", "text")
    .addColumn("grant_id", "text")
    .execute();
  await sql`create unique index access_request_pending_uq on access_request (user_id, role_id, coalesce(team_id, '')) where status = 'pending'`.execute(
    db,
  );
  await db.schema
    .createIndex("access_request_status_idx")
    .on("access_request")
    .columns(["status", "created_at"])
    .execute();
  await db.schema
    .createIndex("access_request_user_idx")
    .on("access_request")
    .columns(["user_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("access_request").ifExists().execute();
  await db.schema.alterTable("role").dropColumn("max_request_hours").execute();
  await db.schema.alterTable("role").dropColumn("requestable").execute();
}
