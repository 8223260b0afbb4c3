import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { db } from "../../app/db.server";
import { dialectOf } from "../../db/connection";
import type { Database } from "../../db/schema";
import { ownColumns } from "../helpers";

// What "the database is unchanged after a refusal" means for the fuzz test: a digest of every
// table a request could change, by the columns that carry its state.
//
// Left out, because a refusal may rightly write them:
// - audit_log: a failed sign-in (and other refused attempts) is audited by design;
// - rate_limit: every counted attempt, refused or not, is a hit;
// - passkey_challenge: asking for passkey options issues one (a 200), and a refused answer
//   spends the challenge it names (single use by design);
// - mail_log, mail_delivery: public forms answer before their email settles, and a delivery
//   settling in the background must not look like a refused request's write.
// Columns left out: a session's last_seen_at/expires_at/data (every request slides them), and
// nothing of task but its identity and payload (the fuzz runs no tasks, but a webhook may finish one).
// A route may add its own exceptions (FuzzTarget.mayWrite), documented where it does.

export type Table = keyof Database;

const COLUMNS: Partial<Record<Table, readonly string[] | "*">> = {
  permission: "*",
  role: "*",
  role_permission: "*",
  menu_item: "*",
  user: "*",
  user_role: "*",
  session: ["id", "user_id"],
  team: "*",
  team_member: "*",
  task: ["id", "type", "user_id", "payload", "created_at"],
  task_artifact: "*",
  webhook_delivery: "*",
  system_setting: "*",
  user_token: "*",
  broadcast: ["id", "title", "message", "level", "link", "audience", "created_by", "created_at"],
  notification: "*",
  user_two_factor: "*",
  two_factor_recovery_code: "*",
  two_factor_required_role: "*",
  oidc_provider: "*",
  oidc_identity: "*",
  oidc_flow: "*",
  oidc_pending_link: "*",
  passkey: "*",
  saved_view: "*",
  // Not last_used_at: a request with the token notes its use, refused or not (like rate_limit).
  api_token: ["id", "user_id", "name", "token_hash", "permissions", "expires_at", "revoked_at"],
};

export type Snapshot = Record<string, string>;

/** Per database handle: the tables' columns, the triggers installed, the digests last computed. */
type Tracker = { columns: Promise<Map<string, string[]>>; ready: Promise<void>; digests: Map<Table, string> };
const trackers = new WeakMap<object, Tracker>();
const TOUCHED = "fuzz_touched";

// Digesting every row of every table before and after each of the fuzz run's thousands of requests
// took 40 % of its time on PostgreSQL. A trigger on each covered table notes the tables a statement
// wrote; only those are digested again, the others keep their last digest. Equality is still by
// digest (a write that puts the same values back changes nothing), so the answer is the same.
function trackerOf(): Tracker {
  const handle = db();
  let tracker = trackers.get(handle);
  if (!tracker) {
    tracker = { columns: ownColumns(), ready: installTriggers(), digests: new Map() };
    trackers.set(handle, tracker);
  }
  return tracker;
}

async function installTriggers() {
  const postgres = dialectOf(db() as Kysely<unknown>) === "postgres";
  // No key: a trigger's insert never waits on another transaction's.
  const statements = [`create table if not exists ${TOUCHED} (t text not null)`];
  if (postgres) {
    statements.push(`create or replace function ${TOUCHED}_note() returns trigger language plpgsql as $$
      begin
        execute format('insert into %I.${TOUCHED} (t) values ($1)', tg_table_schema) using tg_table_name;
        return null;
      end $$`);
    for (const table of Object.keys(COLUMNS))
      statements.push(`create or replace trigger ${TOUCHED}_note after insert or update or delete or truncate
        on "${table}" for each statement execute function ${TOUCHED}_note()`);
  } else {
    for (const table of Object.keys(COLUMNS))
      for (const event of ["insert", "update", "delete"])
        statements.push(`create trigger if not exists ${TOUCHED}_${table}_${event} after ${event} on "${table}"
          begin insert into ${TOUCHED} (t) values ('${table}'); end`);
  }
  for (const statement of statements) await sql.raw(statement).execute(db());
}

/** Each row as a JSON array of its columns, sorted and joined by the database, the tables in one statement. */
async function digests(tables: Table[], columns: Map<string, string[]>): Promise<[Table, string][]> {
  if (tables.length === 0) return [];
  const postgres = dialectOf(db() as Kysely<unknown>) === "postgres";
  const parts = tables.map((table) => {
    const wanted = COLUMNS[table]!;
    const values = sql.join((wanted === "*" ? columns.get(table)! : wanted).map((c) => sql.ref(c)));
    const row = postgres ? sql`json_build_array(${values})::text` : sql`json_array(${values})`;
    const joined = postgres
      ? sql`string_agg(r, E'\\n' order by r)`
      : sql`group_concat(r, char(10) order by r)`;
    return sql`select ${table} as t, count(*) as n, ${joined} as lines from (select ${row} as r from ${sql.table(table)}) x`;
  });
  const { rows } = await sql<{ t: Table; n: number; lines: string | null }>`${sql.join(
    parts,
    sql` union all `,
  )}`.execute(db());
  return rows.map(({ t, n, lines }) => {
    const hash = createHash("sha256")
      .update(lines ?? "")
      .digest("hex")
      .slice(0, 16);
    return [t, `${Number(n)} rows ${hash}`];
  });
}

export async function snapshot(except: readonly Table[] = []): Promise<Snapshot> {
  const tracker = trackerOf();
  await tracker.ready;
  // Taken before digesting: a write landing meanwhile is noted again and digested next time.
  const { rows } = await sql<{ t: Table }>`delete from ${sql.table(TOUCHED)} returning t`.execute(db());
  for (const { t } of rows) tracker.digests.delete(t);
  const tables = (Object.keys(COLUMNS) as Table[]).filter((t) => !except.includes(t));
  const stale = tables.filter((t) => !tracker.digests.has(t));
  for (const [t, digest] of await digests(stale, await tracker.columns)) tracker.digests.set(t, digest);
  return Object.fromEntries(tables.map((t) => [t, tracker.digests.get(t)!]));
}

/** The tables whose digest differs, for the failure message. */
export function changed(before: Snapshot, after: Snapshot): string[] {
  return Object.keys(before).filter((t) => before[t] !== after[t]);
}
