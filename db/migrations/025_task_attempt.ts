import type { Kysely } from "kysely";

// Which run of a task holds it: claiming a task counts it up (app/tasks/repository.server.ts,
// claimTask), and a completion names the run it comes from, so a run that was given up (its
// worker went silent, or the server handed it back while stopping) and finishes late cannot
// overwrite the run that took the task over.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("task")
    .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("task").dropColumn("attempt").execute();
}
