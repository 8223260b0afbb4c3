import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// SCIM provisioning (docs/decisions/033-scim-directories.md): the directories that may provision
// accounts (Okta, Microsoft Entra ID …), the groups each one pushes and who is in them, and on each
// account which directory manages it.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("directory")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    // SHA-256 of the bearer token; null once revoked.
    .addColumn("token_hash", "text", (c) => c.unique())
    // The token's first characters, to tell tokens apart in the list.
    .addColumn("token_hint", "text")
    // JSON array of lower-case domains it may provision.
    .addColumn("domains", "text", (c) => c.notNull())
    .addColumn("default_role_id", "text", (c) => c.references("role.id").onDelete("set null"))
    // JSON array of { group, roleId, team }: a directory group's members get the role (and a team).
    .addColumn("group_roles", "text", (c) => c.notNull().defaultTo("[]"))
    // 1: a new account is mailed a link to set a password; 0: single sign-on only.
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
  // Set when the directory deleted the person: the account stays (disabled, with its history) but
  // the directory no longer sees it, until it provisions the same address again.
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
    // The team this group keeps in step, when its mapping asks for one.
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
