import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { type RawBuilder, sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { onPostgres } from "../test/postgres-schema";
import { containsText, DENSE_MATCHES, ftsTable, SEARCH_COLUMNS, type SearchTable, searchText } from "./like";
import { migrateToLatest } from "./migrate";

// searchText (the substring index) must answer exactly what the LIKE scan (containsText) answers,
// for every indexed table and column set, on rows and queries chosen to trip it: case in and out
// of ASCII, LIKE wildcards and the escape character, FTS5 syntax and keywords, text of one or two
// characters (below the trigram length), emoji and other astral characters. Rows are inserted,
// updated and deleted first, so the triggers that keep the SQLite index are exercised too.

const TRICKY = [
  "a",
  "A",
  "z",
  "Z",
  "0",
  "%",
  "_",
  "\\",
  '"',
  "'",
  "*",
  ":",
  "-",
  "(",
  ")",
  "^",
  "{",
  "}",
  "+",
  " ",
  "@",
  ".",
  "é",
  "É",
  "ß",
  "ẞ",
  "İ",
  "ı",
  "K",
  "Σ",
  "σ",
  "ς",
  "ǅ",
  "Ⅻ",
  "中",
  "😀",
  "👍🏽",
  "🇫🇷",
  "NEAR",
  "AND",
  "OR",
  "NOT",
  "near",
  "Person",
  "person12",
  "@bulk.test",
];
// biome-ignore format: a table
const FIXED = [
  "100%", "100% sure", "a_b", "axb", "back\\slash", "C:\\dir", 'say "hi"', "it's", "NEAR(a b)",
  "a AND b", "x OR y", "NOT this", "prefix*", "col:value", "-minus", "(paren", "ab", "AB", "é",
  "ÉCOLE", "école", "Straße", "STRASSE", "İstanbul", "ıi", "Σίσυφος", "ΣΊΣΥΦΟΣ", "😀😀😀", "a😀b",
  "👍🏽ok", "🇫🇷 Paris", "中文字", "Person 12", "person12@bulk.test", "PERSON120@BULK.TEST", "",
];

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => c !== "\0"),
  },
);
const text = (max: number) => fc.array(piece, { maxLength: max }).map((p) => p.join(""));

/** A query taken out of a stored value (so it hits), its letters' case changed at random. */
const fromValue = fc.record({
  pick: fc.nat(),
  start: fc.nat(),
  length: fc.integer({ min: 1, max: 9 }),
  flip: fc.nat(),
});
type FromValue = typeof fromValue extends fc.Arbitrary<infer V> ? V : never;

function cut(values: string[], q: FromValue): string {
  const chars = [...(values[q.pick % values.length] ?? "")];
  const start = chars.length ? q.start % chars.length : 0;
  return chars
    .slice(start, start + q.length)
    .map((c, i) => ((q.flip >> i) & 1 ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c))
    .join("");
}

/** Every non-empty subset of a table's indexed columns, as the call sites use them. */
function columnSets(table: SearchTable): string[][] {
  const all: readonly string[] = SEARCH_COLUMNS[table];
  return Array.from({ length: 2 ** all.length - 1 }, (_, m) => all.filter((_, i) => ((m + 1) >> i) & 1));
}

// PostgreSQL would scan these few rows whatever the indexes: the indexed side is made to use them
// (pg_trgm's answer, rechecked, is what is compared) and the scan side to scan.
const PLANS = {
  index: ["set enable_seqscan = off", "set enable_bitmapscan = on"],
  scan: ["set enable_seqscan = on", "set enable_bitmapscan = off"],
};

async function ids(
  table: SearchTable,
  where: RawBuilder<boolean>,
  plan: keyof typeof PLANS,
): Promise<string[]> {
  return db()
    .connection()
    .execute(async (c) => {
      if (onPostgres) for (const setting of PLANS[plan]) await sql.raw(setting).execute(c);
      const rows = await sql<{ id: string }>`select id from ${sql.table(table)} where ${where}`.execute(c);
      if (onPostgres) await sql`reset all`.execute(c);
      return rows.rows.map((r) => r.id).sort();
    });
}

// On SQLite, searchText looks the hits up first through the better-sqlite3 handle behind db();
// another Kysely handle on the same connection (a transaction is one) takes the index in a subquery.
const handles = () => (onPostgres ? [db()] : [db(), db().withoutPlugins()]);

async function compare(table: SearchTable, query: string) {
  for (const columns of columnSets(table)) {
    const scan = await ids(
      table,
      sql`(${sql.join(
        columns.map((c) => containsText(`${table}.${c}`, query)),
        sql` or `,
      )})`,
      "scan",
    );
    for (const handle of handles()) {
      const indexed = await ids(table, searchText(handle, table, columns as never, query), "index");
      expect(indexed, `${table}(${columns.join(", ")}) contains ${JSON.stringify(query)}`).toEqual(scan);
    }
  }
}

const at = "2026-01-01T00:00:00.000Z";

async function fill(values: string[]) {
  await db().deleteFrom("audit_log").execute();
  await db().deleteFrom("team").execute();
  await db().deleteFrom("user").execute();
  if (!values.length) return;
  await db()
    .insertInto("user")
    .values(
      values.map((v, i) => ({
        id: `u${i}`,
        name: v,
        email: `${values[(i + 1) % values.length]}#${i}`,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
  await db()
    .insertInto("team")
    .values(
      values.map((v, i) => ({
        id: `t${i}`,
        name: `${v}#${i}`,
        description: "",
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
  await db()
    .insertInto("audit_log")
    .values(
      values.map((v, i) => ({
        id: `a${i}`,
        action: "test",
        actor_email: i % 5 ? v : null,
        target_id: i % 7 ? values[(i + 2) % values.length]! : null,
        created_at: at,
      })),
    )
    .execute();
}

/** Moves values around and deletes some, through the triggers, so the index must follow. */
async function churn(values: string[], seed: number) {
  for (let i = seed % 3; i < values.length; i += 3) {
    const v = values[(i + seed) % values.length]!;
    await db()
      .updateTable("user")
      .set({ name: `${v}!`, email: `${v}#moved${i}` })
      .where("id", "=", `u${i}`)
      .execute();
    await db()
      .updateTable("team")
      .set({ name: `${v}#moved${i}` })
      .where("id", "=", `t${i}`)
      .execute();
    await db()
      .updateTable("audit_log")
      .set({ actor_email: v, target_id: null })
      .where("id", "=", `a${i}`)
      .execute();
  }
  for (const table of ["user", "team", "audit_log"] as const)
    await db()
      .deleteFrom(table)
      .where("id", "like", `_${seed % 4}%`)
      .execute();
}

/** FTS5 compares each index with its table: what the triggers kept must be what is there. */
async function fullTextIndexesIntact() {
  if (onPostgres) return;
  for (const [table, columns] of Object.entries(SEARCH_COLUMNS))
    for (const column of columns) {
      const fts = ftsTable(table as SearchTable, column);
      await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}, rank) values ('integrity-check', 1)`.execute(
        db(),
      );
    }
}

beforeAll(async () => {
  await migrateToLatest(db());
});

describe("searchText answers what the LIKE scan answers", () => {
  it("on hand-picked rows, for hand-picked and derived queries", async () => {
    await fill(FIXED);
    const queries = [
      ...FIXED,
      ...TRICKY,
      "0%",
      "%",
      "_",
      "a_",
      "\\",
      '"',
      '""',
      "*",
      "NEAR",
      "AND",
      "ss",
      "SS",
      "σ",
    ];
    for (const q of queries.concat(FIXED.flatMap((v) => [v.slice(1), v.slice(0, -1), v.toUpperCase()])))
      for (const table of Object.keys(SEARCH_COLUMNS) as SearchTable[]) await compare(table, q);
    await fullTextIndexesIntact();
  });

  it("on random rows after updates and deletes, for random queries", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(text(6), { minLength: 1, maxLength: 25 }),
        fc.array(fc.oneof(text(5), fromValue), { minLength: 1, maxLength: 10 }),
        fc.nat(),
        async (random, picks, seed) => {
          const values = [...random, ...FIXED.slice(seed % FIXED.length, (seed % FIXED.length) + 5)];
          await fill([...new Set(values)]);
          await churn(values, seed);
          for (const pick of picks) {
            const q = typeof pick === "string" ? pick : cut(values, pick);
            for (const table of Object.keys(SEARCH_COLUMNS) as SearchTable[]) await compare(table, q);
          }
          await fullTextIndexesIntact();
        },
      ),
      { seed: 20_260_915, numRuns: onPostgres ? 30 : 60 },
    );
  }, 120_000);

  it("when more rows match than the index is asked for (the scan answers)", async () => {
    const values = Array.from(
      { length: DENSE_MATCHES + 20 },
      (_, i) => `Dense ${i % 2 ? "row" : "ROW"} ${i}`,
    );
    await fill(values);
    for (const q of ["dense row", "ense R", "row 10", "Dense ROW 1019"]) await compare("user", q);
  });

  it.skipIf(onPostgres)("after VACUUM (the SQLite index points at implicit rowids)", async () => {
    const values = Array.from({ length: 200 }, (_, i) => `Vacuumed ${i} ${randomUUID()}`);
    await fill(values);
    await db().deleteFrom("user").where("id", "like", "u1%").execute();
    await sql`vacuum`.execute(db());
    for (const q of ["Vacuumed 19", "vacuumed 5", values[150]!.slice(-12)]) await compare("user", q);
    await fullTextIndexesIntact();
  });
});
