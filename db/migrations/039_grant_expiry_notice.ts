import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// When the holder of a time-bound grant was told it ends within a day, so the hourly job tells
// each holder once, whichever instance runs it (app/users/grant-expiry.server.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user_role").addColumn("expiry_noticed_at", columnTypes(db).timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("user_role").dropColumn("expiry_noticed_at").execute();
}
