import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// A single sign-on identity waiting to be linked to an existing protected account until the person
// proves the account (password or second factor) on /login/sso-link (app/auth/sso-link.server.ts):
// short-lived, single use, found through a signed cookie whose token is stored here only hashed.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("oidc_pending_link")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("provider_id", "text", (c) => c.notNull().references("oidc_provider.id").onDelete("cascade"))
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("redirect_to", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("oidc_pending_link_expires_idx")
    .on("oidc_pending_link")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("oidc_pending_link").ifExists().execute();
}
