import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Single sign-on over OpenID Connect (docs/decisions/020-oidc-single-sign-on.md): the identity
// providers a super admin configured, the accounts linked to a provider's subject, and the
// short-lived state of sign-ins under way (single use, expiring).
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("oidc_provider")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    // AES-GCM (app/security/secret-box.server.ts), never sent to a browser.
    .addColumn("client_secret", "text", (c) => c.notNull())
    // JSON array of lower-case domains.
    .addColumn("allowed_domains", "text", (c) => c.notNull())
    // The role a new account gets; a deleted role leaves new accounts without one.
    .addColumn("role_id", "text", (c) => c.references("role.id").onDelete("set null"))
    .addColumn("password_allowed", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("oidc_identity")
    .addColumn("provider_id", "text", (c) => c.notNull().references("oidc_provider.id").onDelete("cascade"))
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("oidc_identity_pk", ["provider_id", "subject"])
    .execute();
  await db.schema.createIndex("oidc_identity_user_idx").on("oidc_identity").column("user_id").execute();

  await db.schema
    .createTable("oidc_flow")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("provider_id", "text", (c) => c.notNull().references("oidc_provider.id").onDelete("cascade"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("nonce", "text", (c) => c.notNull())
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("redirect_to", "text", (c) => c.notNull())
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oidc_flow_expires_idx").on("oidc_flow").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("oidc_flow").ifExists().execute();
  await db.schema.dropTable("oidc_identity").ifExists().execute();
  await db.schema.dropTable("oidc_provider").ifExists().execute();
}
