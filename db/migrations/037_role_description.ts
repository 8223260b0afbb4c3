import type { Kysely } from "kysely";

// What a role is for, in the words of whoever runs the access page ("For the support desk"),
// shown beside the role wherever one is chosen, above the generated "Can: …" line (decision 044).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("role")
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("role").dropColumn("description").execute();
}
