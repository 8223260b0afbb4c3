import type { Kysely } from "kysely";

// The trace context (a W3C traceparent) of the request that started a task, when tracing is on:
// the task's run, its completion and the event pushed for it join that request's trace.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("task").addColumn("trace_parent", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("task").dropColumn("trace_parent").execute();
}
