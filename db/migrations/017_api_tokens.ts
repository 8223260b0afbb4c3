import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Personal API tokens (app/auth/api-tokens.server.ts, docs/decisions/022-personal-api-tokens.md):
// only the SHA-256 of the secret is kept, found through its unique index; the permissions are the
// subset the owner picked (JSON list of keys), intersected with the owner's own on every use.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("api_token")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("permissions", t.json, (c) => c.notNull())
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("last_used_at", t.timestamp)
    .addColumn("revoked_at", t.timestamp)
    .addColumn("revoked_by", "text")
    .execute();
  await db.schema.createIndex("api_token_hash_idx").unique().on("api_token").column("token_hash").execute();
  await db.schema
    .createIndex("api_token_user_created_idx")
    .on("api_token")
    .columns(["user_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("api_token").ifExists().execute();
}
