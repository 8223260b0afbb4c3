import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";
import { dialectOf } from "../connection";

// Passkeys (WebAuthn credentials) and the single-use challenges of their ceremonies
// (docs/decisions/019-passkeys.md). A credential's public key is public by nature; the
// challenges live a few minutes and are deleted when used.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  const pg = dialectOf(db) === "postgres";
  await db.schema
    .createTable("passkey")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    // base64url, as the browser reports it; unique across every account.
    .addColumn("credential_id", "text", (c) => c.notNull().unique())
    .addColumn("public_key", "text", (c) => c.notNull())
    // The signature counter is an unsigned 32-bit number: past PostgreSQL's integer.
    .addColumn("counter", pg ? "bigint" : "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("transports", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("backed_up", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("last_used_at", t.timestamp)
    .execute();
  await db.schema.createIndex("passkey_user_idx").on("passkey").column("user_id").execute();

  await db.schema
    .createTable("passkey_challenge")
    .addColumn("challenge", "text", (c) => c.primaryKey())
    .addColumn("purpose", "text", (c) => c.notNull())
    // The account a registration is for; null for a sign-in (the passkey names the account).
    .addColumn("user_id", "text", (c) => c.references("user.id").onDelete("cascade"))
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("passkey_challenge_expires_idx")
    .on("passkey_challenge")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("passkey_challenge").ifExists().execute();
  await db.schema.dropTable("passkey").ifExists().execute();
}
