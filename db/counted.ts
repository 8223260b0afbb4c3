import { type Kysely, sql } from "kysely";
import { dialectOf } from "./connection";
import { COUNTED, type CountedTable } from "./counted-tables";
import type { Database } from "./schema";

// Maintained counters (decision 010): triggers keep `stat_count` in step with the tables it counts,
// in the writing transaction, on every write path; one spec per table (counted-tables.ts).

export const STAT_TABLE = "stat_count";

type Source = { row: string; from: string; sign: 1 | -1 };

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function dayOf(pg: boolean, column: string): string {
  // UTC dates, on PostgreSQL independent of the session's TimeZone.
  return pg ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')` : `substr(${column}, 1, 10)`;
}

function keySelects(spec: CountedTable, pg: boolean, sources: Source[]): string {
  const parts: string[] = [];
  for (const { row, from, sign } of sources) {
    for (const key of spec.keys) {
      const scope = key.scope ? key.scope(row) : "''";
      const day = key.day ? dayOf(pg, `${row}.${q(key.day)}`) : "''";
      const when = key.when ? key.when(row) : "true";
      parts.push(
        `select ${scope} as scope, ${day} as day, ${key.name(row)} as name, ${sign} as d ${from} where ${when}`,
      );
    }
  }
  return parts.join("\n    union all ");
}

/**
 * Concurrency-safe. SQLite gets no target alias: older SQLite reads `insert into … as c` in a
 * trigger as a malformed schema (decision 010, db/older-sqlite.test.ts).
 */
function upsert(target: string, spec: CountedTable, pg: boolean, sources: Source[]): string {
  const into = pg ? `${target} as c` : target;
  const current = pg ? "c.n" : `${target}.n`;
  // The fixed order makes concurrent multi-key upserts lock counter rows in the same order (no deadlock).
  return `insert into ${into} (scope, day, name, n)
  select scope, day, name, sum(d) from (
    ${keySelects(spec, pg, sources)}
  ) k group by scope, day, name having sum(d) <> 0${pg ? " order by scope, day, name" : ""}
  on conflict (scope, day, name) do update set n = ${current} + excluded.n`;
}

/** A user's counters exist only while they count something, so deleting a user leaves none behind. */
function dropZeros(target: string, spec: CountedTable, pg: boolean, old: Omit<Source, "sign">): string[] {
  return spec.keys
    .filter((key) => key.scope)
    .map((key) => {
      const day = key.day ? dayOf(pg, `${old.row}.${q(key.day)}`) : "''";
      const keyOf = `${key.scope!(old.row)}, ${day}, ${key.name(old.row)}`;
      return old.from
        ? `delete from ${target} where n = 0 and (scope, day, name) in (select ${keyOf} ${old.from})`
        : `delete from ${target} where n = 0 and (scope, day, name) = (${keyOf})`;
    });
}

function changed(spec: CountedTable, pg: boolean): string {
  const op = pg ? "is distinct from" : "is not";
  return spec.columns.map((c) => `OLD.${q(c)} ${op} NEW.${q(c)}`).join(" or ");
}

function sqliteTriggers(spec: CountedTable): string[] {
  const t = q(spec.table);
  const name = (event: string) => q(`${STAT_TABLE}_${spec.table}_${event}`);
  const drop = (row: string) =>
    dropZeros(STAT_TABLE, spec, false, { row, from: "" })
      .map((d) => `\n  ${d};`)
      .join("");
  const triggers = [
    `create trigger ${name("insert")} after insert on ${t} begin
  ${upsert(STAT_TABLE, spec, false, [{ row: "NEW", from: "", sign: 1 }])};
end`,
    `create trigger ${name("delete")} after delete on ${t} begin
  ${upsert(STAT_TABLE, spec, false, [{ row: "OLD", from: "", sign: -1 }])};${drop("OLD")}
end`,
  ];
  if (spec.columns.length) {
    triggers.push(`create trigger ${name("update")} after update of ${spec.columns.map(q).join(", ")} on ${t}
  when ${changed(spec, false)} begin
  ${upsert(STAT_TABLE, spec, false, [
    { row: "NEW", from: "", sign: 1 },
    { row: "OLD", from: "", sign: -1 },
  ])};${drop("OLD")}
end`);
  }
  return triggers;
}

/**
 * PostgreSQL: inserts and deletes count per statement over the transition tables; updates per row
 * and only when a counted column changed (a heartbeat moves nothing).
 */
function postgresStatements(spec: CountedTable, schema: string): string[] {
  const target = `${q(schema)}.${STAT_TABLE}`;
  const t = q(spec.table);
  const fn = (kind: string) => q(`${STAT_TABLE}_${spec.table}_${kind}`);
  const drop = (row: string, from: string) =>
    dropZeros(target, spec, true, { row, from })
      .map((d) => `\n    ${d};`)
      .join("");
  return [
    `create function ${fn("rows")}() returns trigger language plpgsql as $fn$
begin
  if TG_OP = 'INSERT' then
    ${upsert(target, spec, true, [{ row: "r", from: "from new_rows r", sign: 1 }])};
  elsif TG_OP = 'DELETE' then
    ${upsert(target, spec, true, [{ row: "r", from: "from old_rows r", sign: -1 }])};${drop("r", "from old_rows r")}
  else
    delete from ${target} where name like '${spec.prefix}%';
  end if;
  return null;
end $fn$`,
    `create trigger ${fn("insert")} after insert on ${t} referencing new table as new_rows
  for each statement execute function ${fn("rows")}()`,
    `create trigger ${fn("delete")} after delete on ${t} referencing old table as old_rows
  for each statement execute function ${fn("rows")}()`,
    `create trigger ${fn("truncate")} after truncate on ${t} for each statement execute function ${fn("rows")}()`,
    ...(spec.columns.length
      ? [
          `create function ${fn("update")}() returns trigger language plpgsql as $fn$
begin
  ${upsert(target, spec, true, [
    { row: "NEW", from: "", sign: 1 },
    { row: "OLD", from: "", sign: -1 },
  ])};${drop("OLD", "")}
  return null;
end $fn$`,
          `create trigger ${fn("update")} after update on ${t} for each row
  when (${changed(spec, true)}) execute function ${fn("update")}()`,
        ]
      : []),
  ];
}

export async function installCountTriggers(db: Kysely<unknown>, specs: CountedTable[]) {
  const pg = dialectOf(db) === "postgres";
  const schema = pg ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s : "";
  for (const spec of specs) {
    for (const statement of pg ? postgresStatements(spec, schema) : sqliteTriggers(spec)) {
      await sql.raw(statement).execute(db);
    }
  }
}

export async function dropCountTriggers(db: Kysely<unknown>, specs: CountedTable[]) {
  const pg = dialectOf(db) === "postgres";
  for (const { table } of specs) {
    for (const event of ["insert", "delete", "update", "truncate"]) {
      const name = q(`${STAT_TABLE}_${table}_${event}`);
      await sql
        .raw(pg ? `drop trigger if exists ${name} on ${q(table)}` : `drop trigger if exists ${name}`)
        .execute(db);
    }
    if (pg) {
      for (const kind of ["rows", "update"]) {
        await sql.raw(`drop function if exists ${q(`${STAT_TABLE}_${table}_${kind}`)}()`).execute(db);
      }
    }
  }
}

/**
 * Bulk loading: `fn` writes without the triggers and the counters are recounted once, in one
 * transaction that keeps every other writer out, so nothing goes uncounted (decision 010).
 */
export async function writeUncounted<T>(
  db: Kysely<Database>,
  fn: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const run = async (trx: Kysely<Database>) => {
    const any = trx as Kysely<unknown>;
    await dropCountTriggers(any, COUNTED);
    const out = await fn(trx);
    await installCountTriggers(any, COUNTED);
    await recount(any, COUNTED);
    return out;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

export async function recount(db: Kysely<unknown>, specs: CountedTable[]) {
  const pg = dialectOf(db) === "postgres";
  for (const spec of specs) {
    await sql.raw(`delete from ${STAT_TABLE} where name like '${spec.prefix}%'`).execute(db);
    const all: Source = { row: "r", from: `from ${q(spec.table)} r`, sign: 1 };
    await sql.raw(upsert(STAT_TABLE, spec, pg, [all])).execute(db);
  }
}

/** 0 for a counter that does not exist; point reads, the same cost at any table size. */
export async function counterTotals<N extends string>(
  db: Kysely<Database>,
  scope: string,
  names: readonly N[],
): Promise<Record<N, number>> {
  const rows = await db
    .selectFrom("stat_count")
    .select(["name", "n"])
    .where("scope", "=", scope)
    .where("day", "=", "")
    .where("name", "in", names)
    .execute();
  const totals = Object.fromEntries(names.map((name) => [name, 0])) as Record<N, number>;
  for (const row of rows) totals[row.name as N] = Number(row.n);
  return totals;
}
