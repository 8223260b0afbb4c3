import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("permission")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("key", "text", (c) => c.notNull().unique())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("role")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("all_permissions", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_system", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("role_permission")
    .addColumn("role_id", "text", (c) => c.notNull().references("role.id").onDelete("cascade"))
    .addColumn("permission_id", "text", (c) => c.notNull().references("permission.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("role_permission_pk", ["role_id", "permission_id"])
    .execute();

  await db.schema
    .createTable("menu_item")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull().unique())
    .addColumn("icon", "text", (c) => c.notNull())
    .addColumn("required_permission", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("user")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("email_verified", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("password_hash", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
    .addColumn("must_change_password", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_login_at", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("user_role")
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("role_id", "text", (c) => c.notNull().references("role.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("user_role_pk", ["user_id", "role_id"])
    .execute();
  await db.schema.createIndex("user_role_role_idx").on("user_role").column("role_id").execute();

  await db.schema
    .createTable("session")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("ip", "text")
    .addColumn("user_agent", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("last_seen_at", t.timestamp, (c) => c.notNull())
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("session_user_idx").on("session").column("user_id").execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("actor_id", "text")
    .addColumn("actor_email", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text")
    .addColumn("target_id", "text")
    .addColumn("details", t.json)
    .addColumn("ip", "text")
    .addColumn("user_agent", "text")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_log_created_idx").on("audit_log").column("created_at").execute();
  await db.schema
    .createIndex("audit_log_action_created_idx")
    .on("audit_log")
    .columns(["action", "created_at"])
    .execute();
  await db.schema
    .createIndex("audit_log_target_idx")
    .on("audit_log")
    .columns(["target_type", "target_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    "audit_log",
    "session",
    "user_role",
    "user",
    "menu_item",
    "role_permission",
    "role",
    "permission",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
