import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// SCIM provisioning (decision 033).
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("directory")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    // Null once revoked.
    .addColumn("token_hash", "text", (c) => c.unique())
    .addColumn("token_hint", "text")
    .addColumn("domains", "text", (c) => c.notNull())
    .addColumn("default_role_id", "text", (c) => c.references("role.id").onDelete("set null"))
    .addColumn("group_roles", "text", (c) => c.notNull().defaultTo("[]"))
    // 0: single sign-on only.
    .addColumn("send_password_link", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_by", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .addColumn("last_used_at", t.timestamp)
    .execute();

  await db.schema
    .alterTable("user")
    .addColumn("directory_id", "text", (c) => c.references("directory.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("user").addColumn("external_id", "text").execute();
  await db.schema.alterTable("user").addColumn("department", "text").execute();
  // The account stays, disabled with its history, but the directory no longer sees it.
  await db.schema.alterTable("user").addColumn("directory_deleted_at", t.timestamp).execute();
  await db.schema
    .createIndex("user_directory_idx")
    .on("user")
    .columns(["directory_id", "external_id"])
    .execute();

  await db.schema
    .createTable("directory_group")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("directory_id", "text", (c) => c.notNull().references("directory.id").onDelete("cascade"))
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("external_id", "text")
    .addColumn("team_id", "text", (c) => c.references("team.id").onDelete("set null"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("directory_group_name_idx")
    .on("directory_group")
    .columns(["directory_id", "display_name"])
    .unique()
    .execute();

  await db.schema
    .createTable("directory_group_member")
    .addColumn("group_id", "text", (c) => c.notNull().references("directory_group.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("directory_group_member_pk", ["group_id", "user_id"])
    .execute();
  await db.schema
    .createIndex("directory_group_member_user_idx")
    .on("directory_group_member")
    .column("user_id")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("directory_group_member").execute();
  await db.schema.dropTable("directory_group").execute();
  await db.schema.dropIndex("user_directory_idx").execute();
  await db.schema.alterTable("user").dropColumn("directory_deleted_at").execute();
  await db.schema.alterTable("user").dropColumn("department").execute();
  await db.schema.alterTable("user").dropColumn("external_id").execute();
  await db.schema.alterTable("user").dropColumn("directory_id").execute();
  await db.schema.dropTable("directory").execute();
}
