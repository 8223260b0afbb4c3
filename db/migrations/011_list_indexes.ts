import { type Kysely, sql } from "kysely";

// One index per (filter, sort) a list offers, each ending in `id` for the keyset tie-breaker
// (decision 012); replaced narrower ones are dropped, as every audit row written pays for each index.

type Index = { name: string; table: string; columns: string[]; where?: string };

const CREATED: Index[] = [
  { name: "user_list_name_idx", table: "user", columns: ["status", "email_verified", "name", "id"] },
  { name: "user_list_email_idx", table: "user", columns: ["status", "email_verified", "email", "id"] },
  { name: "user_list_created_idx", table: "user", columns: ["status", "email_verified", "created_at", "id"] },
  {
    name: "user_list_login_idx",
    table: "user",
    columns: ["status", "email_verified", "last_login_at", "id"],
  },
  { name: "user_list_id_idx", table: "user", columns: ["status", "email_verified", "id"] },
  { name: "user_name_id_idx", table: "user", columns: ["name", "id"] },
  { name: "audit_log_created_id_idx", table: "audit_log", columns: ["created_at", "id"] },
  { name: "audit_log_action_created_id_idx", table: "audit_log", columns: ["action", "created_at", "id"] },
  {
    name: "audit_log_target_created_idx",
    table: "audit_log",
    columns: ["target_type", "target_id", "created_at", "id"],
  },
  { name: "audit_log_actor_created_id_idx", table: "audit_log", columns: ["actor_id", "created_at", "id"] },
  { name: "task_user_created_id_idx", table: "task", columns: ["user_id", "created_at", "id"] },
  {
    name: "notification_user_created_id_idx",
    table: "notification",
    columns: ["user_id", "created_at", "id"],
  },
  { name: "notification_unread_idx", table: "notification", columns: ["user_id"], where: "read_at is null" },
  { name: "mail_log_created_id_idx", table: "mail_log", columns: ["created_at", "id"] },
  { name: "user_token_kind_created_idx", table: "user_token", columns: ["kind", "created_at"] },
];

const REPLACED: Index[] = [
  { name: "user_status_created_idx", table: "user", columns: ["status", "created_at"] },
  { name: "user_name_idx", table: "user", columns: ["name"] },
  { name: "audit_log_created_idx", table: "audit_log", columns: ["created_at"] },
  { name: "audit_log_action_created_idx", table: "audit_log", columns: ["action", "created_at"] },
  { name: "audit_log_target_idx", table: "audit_log", columns: ["target_type", "target_id"] },
  { name: "audit_log_actor_created_idx", table: "audit_log", columns: ["actor_id", "created_at"] },
  { name: "task_user_created_idx", table: "task", columns: ["user_id", "created_at"] },
  { name: "notification_user_created_idx", table: "notification", columns: ["user_id", "created_at"] },
  { name: "mail_log_created_idx", table: "mail_log", columns: ["created_at"] },
];

async function create(db: Kysely<unknown>, index: Index) {
  let builder = db.schema.createIndex(index.name).on(index.table).columns(index.columns);
  if (index.where) builder = builder.where(sql.raw<boolean>(index.where));
  await builder.execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of CREATED) await create(db, index);
  for (const index of REPLACED) await db.schema.dropIndex(index.name).ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of REPLACED) await create(db, index);
  for (const index of CREATED) await db.schema.dropIndex(index.name).ifExists().execute();
}
