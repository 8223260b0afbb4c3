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

const allColumns = new WeakMap<object, Promise<Map<string, string[]>>>();

/** Every column of every table, read once per database handle (for the "*" entries). */
function columnsOf(table: Table): Promise<string[]> {
  const handle = db();
  let known = allColumns.get(handle);
  if (!known) {
    known = ownColumns();
    allColumns.set(handle, known);
  }
  return known.then((map) => map.get(table)!);
}

export async function snapshot(except: readonly Table[] = []): Promise<Snapshot> {
  const tables = (Object.keys(COLUMNS) as Table[]).filter((t) => !except.includes(t));
  const postgres = dialectOf(db() as Kysely<unknown>) === "postgres";
  // Each row as a JSON array of its columns, sorted and joined by the database, every table in
  // one statement: the same rows and values give the same text, any change to one of them another.
  const parts = await Promise.all(
    tables.map(async (table) => {
      const wanted = COLUMNS[table]!;
      const values = sql.join((wanted === "*" ? await columnsOf(table) : wanted).map((c) => sql.ref(c)));
      const row = postgres ? sql`json_build_array(${values})::text` : sql`json_array(${values})`;
      const joined = postgres
        ? sql`string_agg(r, E'\\n' order by r)`
        : sql`group_concat(r, char(10) order by r)`;
      return sql`select ${table} as t, count(*) as n, ${joined} as lines from (select ${row} as r from ${sql.table(table)}) x`;
    }),
  );
  const { rows } = await sql<{
    t: Table;
    n: number;
    lines: string | null;
  }>`${sql.join(parts, sql` union all `)}`.execute(db());
  return Object.fromEntries(
    rows.map(({ t, n, lines }) => {
      const hash = createHash("sha256")
        .update(lines ?? "")
        .digest("hex")
        .slice(0, 16);
      return [t, `${Number(n)} rows ${hash}`];
    }),
  );
}

/** The tables whose digest differs, for the failure message. */
export function changed(before: Snapshot, after: Snapshot): string[] {
  return Object.keys(before).filter((t) => before[t] !== after[t]);
}
