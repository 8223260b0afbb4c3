import { randomBytes } from "node:crypto";
import { copyFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { SEED_ENV } from "./database-template";
import { changeSchemas, copyTemplateInto, onPostgres, testPostgresUrl, withSchema } from "./postgres-schema";

// The copy of the run's template each test file starts from (test/database-template.ts) is what
// migrating and seeding an empty database gives: the same tables, indexes, constraints, triggers
// and rows (ids and times aside), the same counters, and on PostgreSQL the same planner's view of
// the tables' sizes (pg_class: the query plan tests depend on it).

async function migratedAndSeeded(db: Kysely<never>) {
  await migrateToLatest(db);
  await seed(db as never, SEED_ENV);
}

describe.skipIf(onPostgres)("the SQLite template", () => {
  it("is a migrated and seeded database", async () => {
    const template = inject("databaseTemplate");
    if (template.engine !== "sqlite") throw new Error("a SQLite run has a SQLite template");
    const [copy, fresh] = ["copy", "fresh"].map((n) =>
      join(tmpdir(), `template-${n}-${randomBytes(4).toString("hex")}.db`),
    );
    copyFileSync(template.file, copy!);
    const [a, b] = [createDb(`file:${copy}`), createDb(`file:${fresh}`)];
    try {
      await migratedAndSeeded(b as never);
      const schema = (db: typeof a) =>
        sql<{ type: string; name: string; sql: string | null }>`select type, name, sql from sqlite_schema
          where name not like 'sqlite_stat%' order by name`
          .execute(db)
          .then((r) => r.rows);
      expect(await schema(a)).toEqual(await schema(b));
      for (const { name } of (await schema(a)).filter((o) => o.type === "table")) {
        const count = (db: typeof a) =>
          sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`
            .execute(db)
            .then((r) => r.rows[0]!.n);
        expect(await count(a), name).toBe(await count(b));
      }
      const counters = (db: typeof a) =>
        db
          .selectFrom("stat_count")
          .select(["name", "day", "n", sql<number>`length(scope)`.as("scope")])
          .orderBy("name")
          .orderBy("day")
          .execute();
      expect(await counters(a)).toEqual(await counters(b));
    } finally {
      await a.destroy();
      await b.destroy();
      for (const file of [copy, fresh])
        for (const s of ["", "-wal", "-shm"]) rmSync(file + s, { force: true });
    }
  });
});

describe.skipIf(!onPostgres)("the PostgreSQL template", () => {
  it("replays into a schema as migrating and seeding it would have made it", async () => {
    const template = inject("databaseTemplate");
    if (template.engine !== "postgres" || template.script === null) return; // no pg_dump: nothing replayed
    const url = testPostgresUrl();
    const [copy, fresh] = ["copy", "fresh"].map((n) => `tmpl_test_${n}_${randomBytes(4).toString("hex")}`);
    await changeSchemas(url, [`create schema ${copy}`, `create schema ${fresh}`]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      expect(await copyTemplateInto(copy!, template.script)).toBe(true);
      const db = createDb(withSchema(url, fresh!));
      await migratedAndSeeded(db as never).finally(() => db.destroy());
      // Each query is run on both schemas (SCHEMA in its text), their names left out of the answers.
      const rows = async (schema: string, text: string) => {
        const { rows } = await c.query(text.replaceAll("SCHEMA", schema));
        return JSON.parse(JSON.stringify(rows).replaceAll(schema, "SCHEMA"));
      };
      const same = async (text: string) =>
        expect(await rows(copy!, text), text).toEqual(await rows(fresh!, text));
      await same(`select table_name, column_name, data_type, column_default, is_nullable
        from information_schema.columns where table_schema = 'SCHEMA' order by 1, 2`);
      await same("select indexname, indexdef from pg_indexes where schemaname = 'SCHEMA' order by 1");
      await same(`select conname, pg_get_constraintdef(c.oid) from pg_constraint c
        join pg_namespace n on n.oid = c.connamespace where n.nspname = 'SCHEMA' order by 1`);
      await same(`select tgname, pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid
        join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'SCHEMA' and not t.tgisinternal order by 1`);
      await same(`select proname, prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'SCHEMA' order by 1`);
      await same(`select relname, reltuples, relpages from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'SCHEMA' and c.relkind = 'r' order by 1`);
      await same("select name, day, n, length(scope) from SCHEMA.stat_count order by 1, 2, 4");
      for (const { table_name } of await rows(
        copy!,
        "select table_name from information_schema.tables where table_schema = 'SCHEMA'",
      ))
        await same(`select count(*) from SCHEMA."${table_name}"`);
    } finally {
      await c.end();
      await changeSchemas(url, [`drop schema ${copy} cascade`, `drop schema ${fresh} cascade`]);
    }
  });
});
