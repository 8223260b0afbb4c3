import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// "View as" (docs/decisions/021-impersonation.md): a super admin's own session row names the
// account it currently acts as, until a time 30 minutes out; every audit row written meanwhile
// names the real person at the keyboard beside the account acted as.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable("session")
    .addColumn("impersonated_user_id", "text", (c) => c.references("user.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("session").addColumn("impersonation_expires_at", t.timestamp).execute();
  await db.schema.alterTable("audit_log").addColumn("impersonator_id", "text").execute();
  await db.schema.alterTable("audit_log").addColumn("impersonator_email", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("audit_log").dropColumn("impersonator_email").execute();
  await db.schema.alterTable("audit_log").dropColumn("impersonator_id").execute();
  await db.schema.alterTable("session").dropColumn("impersonation_expires_at").execute();
  await db.schema.alterTable("session").dropColumn("impersonated_user_id").execute();
}
