import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { dialectOf } from "./connection";
import * as m001 from "./migrations/001_initial";
import * as m002 from "./migrations/002_tasks";
import * as m003 from "./migrations/003_mail_settings";
import * as m004 from "./migrations/004_teams";
import * as m005 from "./migrations/005_list_indexes";
import * as m006 from "./migrations/006_notifications";
import * as m007 from "./migrations/007_rate_limit";
import * as m008 from "./migrations/008_public_mail_delivery";
import * as m009 from "./migrations/009_aggregates";
import * as m010 from "./migrations/010_search";
import * as m011 from "./migrations/011_list_indexes";
import * as m012 from "./migrations/012_maintained_counts";
import * as m013 from "./migrations/013_two_factor";
import * as m014 from "./migrations/014_passkeys";
import * as m015 from "./migrations/015_oidc";
import * as m016 from "./migrations/016_impersonation";
import * as m017 from "./migrations/017_api_tokens";
import * as m018 from "./migrations/018_list_paths";
import * as m019 from "./migrations/019_user_locale";
import * as m020 from "./migrations/020_request_ids";
import * as m021 from "./migrations/021_oidc_pending_link";
import * as m022 from "./migrations/022_sqlite_compatible_counters";
import * as m023 from "./migrations/023_notification_kind";
import * as m024 from "./migrations/024_event_log";
import * as m025 from "./migrations/025_task_attempt";
import * as m026 from "./migrations/026_audit_chain";
import * as m027 from "./migrations/027_webhooks";
import * as m028 from "./migrations/028_directories";
import * as m029 from "./migrations/029_sign_in_alerts";
import * as m030 from "./migrations/030_label_translations";
import * as m031 from "./migrations/031_saved_views";
import * as m032 from "./migrations/032_menu_item_hidden";
import * as m033 from "./migrations/033_audit_hash_version";
import * as m034 from "./migrations/034_cache_generation";
import * as m035 from "./migrations/035_audit_impersonator_index";
import * as m036 from "./migrations/036_scoped_grants";
import * as m037 from "./migrations/037_role_description";
import * as m038 from "./migrations/038_task_trace_parent";
import * as m039 from "./migrations/039_grant_expiry_notice";
import * as m040 from "./migrations/040_access_requests";
import * as m041 from "./migrations/041_access_reviews";
import * as m042 from "./migrations/042_role_networks";
import * as m043 from "./migrations/043_session_policy";
import * as m044 from "./migrations/044_email_templates";

// A static list, not a folder scan, so the migrations bundle with the server build.
const migrations: Record<string, Migration> = {
  "001_initial": m001,
  "002_tasks": m002,
  "003_mail_settings": m003,
  "004_teams": m004,
  "005_list_indexes": m005,
  "006_notifications": m006,
  "007_rate_limit": m007,
  "008_public_mail_delivery": m008,
  "009_aggregates": m009,
  "010_search": m010,
  "011_list_indexes": m011,
  "012_maintained_counts": m012,
  "013_two_factor": m013,
  "014_passkeys": m014,
  "015_oidc": m015,
  "016_impersonation": m016,
  "017_api_tokens": m017,
  "018_list_paths": m018,
  "019_user_locale": m019,
  "020_request_ids": m020,
  "021_oidc_pending_link": m021,
  "022_sqlite_compatible_counters": m022,
  "023_notification_kind": m023,
  "024_event_log": m024,
  "025_task_attempt": m025,
  "026_audit_chain": m026,
  "027_webhooks": m027,
  "028_directories": m028,
  "029_sign_in_alerts": m029,
  "030_label_translations": m030,
  "031_saved_views": m031,
  "032_menu_item_hidden": m032,
  "033_audit_hash_version": m033,
  "034_cache_generation": m034,
  "035_audit_impersonator_index": m035,
  "036_scoped_grants": m036,
  "037_role_description": m037,
  "038_task_trace_parent": m038,
  "039_grant_expiry_notice": m039,
  "040_access_requests": m040,
  "041_access_reviews": m041,
  "042_role_networks": m042,
  "043_session_policy": m043,
  "044_email_templates": m044,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** A restore refuses a database that has run others. */
export const knownMigrationNames: readonly string[] = Object.keys(migrations);

export const SCHEMA_CHANGE_LOCK = 4_200_117;

/** Kysely's migrator fails when another schema is altered meanwhile, so schema changes take turns. */
export async function withSchemaChangeLock<T, R>(db: Kysely<T>, fn: () => Promise<R>): Promise<R> {
  if (dialectOf(db as Kysely<unknown>) !== "postgres") return fn();
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${SCHEMA_CHANGE_LOCK})`.execute(conn);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${SCHEMA_CHANGE_LOCK})`.execute(conn);
    }
  });
}

export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  return withSchemaChangeLock(db, async () => {
    // Otherwise another schema's bookkeeping tables would be taken for ours.
    const migrationTableSchema =
      dialectOf(db as Kysely<unknown>) === "postgres" ? await ensureSchema(db) : undefined;
    const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true, migrationTableSchema });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error;
    return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  });
}

/** Migrating is how a database gets its tables, so a fresh schema is made the same way. */
async function ensureSchema<T>(db: Kysely<T>): Promise<string> {
  const current = (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db))
    .rows[0]?.schema;
  if (current) return current;
  const path = (await sql<{ path: string }>`select current_setting('search_path') as path`.execute(db))
    .rows[0]?.path;
  const wanted = path?.split(",")[0]?.trim().replace(/^"|"$/g, "");
  // Checked again because it goes into DDL as is.
  if (!wanted || !/^[a-z_][a-z0-9_]*$/.test(wanted))
    throw new Error(`no schema to migrate into (search_path is "${path}")`);
  await sql.raw(`create schema if not exists ${wanted}`).execute(db);
  console.log(`created schema ${wanted}`);
  return wanted;
}
