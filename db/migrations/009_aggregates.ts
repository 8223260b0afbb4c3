import { type Kysely, sql } from "kysely";
import { dialectOf } from "../connection";
import { type CountedTable, installCountTriggers, recount, STAT_TABLE } from "../counted";

// The overview's numbers as counters (docs/decisions/010-maintained-aggregates.md), so the
// dashboard reads a few dozen rows whatever the size of the tables. `scope` is '' for the
// whole system or a user id (that user's own tasks); `day` is a UTC date or '' for a total.
// The specs live here, not in the module, so what this migration installed stays fixed.
const LOGIN = "auth.login.succeeded";

export const COUNTED: CountedTable[] = [
  {
    table: "user",
    prefix: "users.",
    columns: ["email_verified", "status", "created_at"],
    keys: [
      { name: () => "'users.total'" },
      { name: () => "'users.verified'", when: (r) => `${r}.email_verified = 1` },
      { name: () => "'users.disabled'", when: (r) => `${r}.status = 'disabled'` },
      { name: () => "'users.created'", day: "created_at" },
    ],
  },
  { table: "team", prefix: "teams.", columns: [], keys: [{ name: () => "'teams.total'" }] },
  {
    table: "task",
    prefix: "tasks.",
    columns: ["status", "user_id", "created_at"],
    keys: [
      { name: (r) => `'tasks.status.' || ${r}.status` },
      { name: () => "'tasks.created'", day: "created_at" },
      { scope: (r) => `${r}.user_id`, name: (r) => `'tasks.status.' || ${r}.status` },
      { scope: (r) => `${r}.user_id`, name: () => "'tasks.created'", day: "created_at" },
    ],
  },
  {
    table: "mail_log",
    prefix: "mail.",
    columns: ["status"],
    keys: [{ name: (r) => `'mail.status.' || ${r}.status` }],
  },
  {
    table: "audit_log",
    prefix: "signins.",
    columns: ["action", "created_at"],
    keys: [{ name: () => "'signins.day'", day: "created_at", when: (r) => `${r}.action = '${LOGIN}'` }],
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  // PostgreSQL runs each migration in a transaction; SQLite's migrator does not, and the
  // recount must see the same rows the triggers start counting after.
  const body = async (trx: Kysely<unknown>) => {
    await trx.schema
      .createTable(STAT_TABLE)
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("n", pg ? "bigint" : "integer", (c) => c.notNull())
      // scope then day: totals are (scope, ''), a chart is (scope, day >= since), each one range.
      .addPrimaryKeyConstraint("stat_count_pk", ["scope", "day", "name"])
      .execute();
    // Triggers first: on PostgreSQL creating one locks its table against writers until commit,
    // so nothing is written between the recount and the first counted change.
    await installCountTriggers(trx, COUNTED);
    await recount(trx, COUNTED);
  };
  if (pg) await body(db);
  else await db.transaction().execute(body);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  for (const { table } of COUNTED) {
    for (const event of ["insert", "delete", "update", "truncate"]) {
      const name = `${STAT_TABLE}_${table}_${event}`;
      await sql
        .raw(pg ? `drop trigger if exists ${name} on "${table}"` : `drop trigger if exists ${name}`)
        .execute(db);
    }
    if (pg) {
      for (const kind of ["rows", "update"]) {
        await sql.raw(`drop function if exists ${STAT_TABLE}_${table}_${kind}()`).execute(db);
      }
    }
  }
  await db.schema.dropTable(STAT_TABLE).ifExists().execute();
}
