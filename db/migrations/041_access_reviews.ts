import type { Kysely } from "kysely";
import { columnTypes } from "../column-types";

// Access reviews (docs/decisions/048-access-reviews.md). permission_use keeps, per person and
// permission, when a check last let them through (counted in memory, written at most once a
// minute per instance). A review snapshots the grants in its reach as items when it opens, so
// what was reviewed stays what was there, even after the grants change or go.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("permission_use")
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("permission", "text", (c) => c.notNull())
    .addColumn("last_used_at", t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("permission_use_pk", ["user_id", "permission"])
    .execute();
  await db.schema
    .createTable("access_review")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("role_id", "text", (c) => c.references("role.id").onDelete("set null"))
    .addColumn("team_id", "text", (c) => c.references("team.id").onDelete("set null"))
    .addColumn("due_at", t.timestamp, (c) => c.notNull())
    // keep | revoke: what the daily cleanup does with the items undecided when it is due
    .addColumn("on_overdue", "text", (c) => c.notNull())
    // open | closing | closed
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.references("user.id").onDelete("set null"))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("closed_by", "text", (c) => c.references("user.id").onDelete("set null"))
    .addColumn("closed_at", t.timestamp)
    .addColumn("task_id", "text")
    .addColumn("evidence_csv", "text")
    .addColumn("evidence_sha256", "text")
    .execute();
  await db.schema
    .createIndex("access_review_status_idx")
    .on("access_review")
    .columns(["status", "due_at"])
    .execute();
  await db.schema
    .createTable("access_review_item")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("review_id", "text", (c) => c.notNull().references("access_review.id").onDelete("cascade"))
    .addColumn("grant_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("user_email", "text", (c) => c.notNull())
    .addColumn("user_name", "text", (c) => c.notNull())
    .addColumn("role_id", "text", (c) => c.notNull())
    .addColumn("role_name", "text", (c) => c.notNull())
    .addColumn("team_id", "text")
    .addColumn("team_name", "text")
    .addColumn("granted_by", "text")
    .addColumn("granted_at", t.timestamp)
    .addColumn("expires_at", t.timestamp)
    // keep | revoke | null (undecided)
    .addColumn("decision", "text")
    .addColumn("decided_by", "text")
    .addColumn("decided_at", t.timestamp)
    // Set when the review closes: revoked | kept | gone | refused
    .addColumn("outcome", "text")
    .execute();
  await db.schema
    .createIndex("access_review_item_review_idx")
    .on("access_review_item")
    .columns(["review_id", "user_email"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("access_review_item").ifExists().execute();
  await db.schema.dropTable("access_review").ifExists().execute();
  await db.schema.dropTable("permission_use").ifExists().execute();
}
