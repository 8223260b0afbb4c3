import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Saved views of a list (app/views/, docs/decisions/039-saved-views.md): a name for a filtered,
// sorted list, kept as the list's own normalised query string. Personal, or shared with a role.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("saved_view")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    // "users" | "audit": which list the query belongs to.
    .addColumn("list", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    // "role=admin&sort=name": the list's schema's output without its defaults, never the raw address.
    .addColumn("query", "text", (c) => c.notNull())
    // A deleted role leaves the view with its owner only.
    .addColumn("shared_role_id", "text", (c) => c.references("role.id").onDelete("set null"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("saved_view_owner_name_idx")
    .unique()
    .on("saved_view")
    .columns(["owner_id", "list", "name"])
    .execute();
  await db.schema
    .createIndex("saved_view_role_idx")
    .on("saved_view")
    .columns(["shared_role_id", "list"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("saved_view").ifExists().execute();
}
