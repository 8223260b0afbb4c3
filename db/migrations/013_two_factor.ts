import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Two-factor authentication (TOTP, docs/decisions/018-two-factor-totp.md): each account's authenticator secret (encrypted),
// its single-use recovery codes (hashed), and the roles whose holders must enrol.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("user_two_factor")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
    // AES-GCM (app/security/secret-box.server.ts), never the base32 text itself.
    .addColumn("secret", "text", (c) => c.notNull())
    // Null while enrolment waits for its first code; the secret counts only once confirmed.
    .addColumn("confirmed_at", t.timestamp)
    // The TOTP time step of the last accepted code: a code is never accepted twice.
    .addColumn("last_step", "bigint")
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("two_factor_recovery_code")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("used_at", t.timestamp)
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("two_factor_recovery_code_user_idx")
    .on("two_factor_recovery_code")
    .columns(["user_id", "code_hash"])
    .execute();

  await db.schema
    .createTable("two_factor_required_role")
    .addColumn("role_id", "text", (c) => c.primaryKey().references("role.id").onDelete("cascade"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("two_factor_required_role").ifExists().execute();
  await db.schema.dropTable("two_factor_recovery_code").ifExists().execute();
  await db.schema.dropTable("user_two_factor").ifExists().execute();
}
