import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// `mail_delivery`: the state of the email a public form (register, forgot password, resend) sends
// after its answer, so "check your inbox" can say sending / sent / failed on any instance.
// `user.pending_registration`: 1 while a self-registered account is not verified yet; only
// such an account takes the credentials a later registration carries in its verification link.
// `user.registration_binding`: SHA-256 of the newest registrant's browser cookie, and
// `user.registration_contested`: 1 once two browsers registered the address; a contested link
// applies carried credentials only in the registering browser (registration.server.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("mail_delivery")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("mail_delivery_created_idx").on("mail_delivery").column("created_at").execute();
  await db.schema
    .alterTable("user")
    .addColumn("pending_registration", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("user").addColumn("registration_binding", "text").execute();
  await db.schema
    .alterTable("user")
    .addColumn("registration_contested", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user").dropColumn("registration_contested").execute();
  await db.schema.alterTable("user").dropColumn("registration_binding").execute();
  await db.schema.alterTable("user").dropColumn("pending_registration").execute();
  await db.schema.dropTable("mail_delivery").ifExists().execute();
}
