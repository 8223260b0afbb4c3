import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import { z } from "zod";
import { hasNoNul } from "./nul";
import type { Database } from "./schema";

// Keyset pagination: docs/decisions/012-keyset-pagination.md.

export type SortDir = "asc" | "desc";
export type SortValue = string | number | null;

export type Position = { value: SortValue; id: string };

/**
 * `column` is qualified, for WHERE and ORDER BY; `output`/`idOutput` name it in the returned rows.
 * NULL sorts as the smallest value on both engines (SQLite's native order).
 */
export type Order = {
  column: string;
  output: string;
  id: string;
  idOutput: string;
  dir: SortDir;
  nullable: boolean;
};

/**
 * `fixed` when the segment's query pins the sort column to one value; fixed values are compared
 * in JavaScript, so they must be NULL, numbers or plain ASCII words.
 */
export type Segment<DB, TB extends keyof DB, O> = {
  query: SelectQueryBuilder<DB, TB, O>;
  fixed?: { value: SortValue };
};

export const flip = (dir: SortDir): SortDir => (dir === "asc" ? "desc" : "asc");

function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

function segmentQuery<DB, TB extends keyof DB, O>(
  segment: Segment<DB, TB, O>,
  order: Order,
  after: Position | null,
  limit: number,
) {
  const op = order.dir === "asc" ? ">" : "<";
  const id = sql.ref(order.id);
  let query = segment.query;
  if (segment.fixed) {
    if (after) {
      const side = compareValues(segment.fixed.value, after.value) * (order.dir === "asc" ? 1 : -1);
      if (side < 0) return null;
      if (side === 0) query = query.where(sql<boolean>`${id} ${sql.raw(op)} ${after.id}`);
    }
    return query.orderBy(id, order.dir).limit(limit);
  }
  const column = sql.ref(order.column);
  if (after?.value === null) {
    // NULLs are the smallest: walking down from one, no non-NULL row is left.
    if (order.dir === "desc") return null;
  } else if (after) {
    // A row value, so both engines take it as one index range, not an OR they cannot seek.
    query = query.where(sql<boolean>`(${column}, ${id}) ${sql.raw(op)} (${after.value}, ${after.id})`);
  }
  return query.orderBy(column, order.dir).orderBy(id, order.dir).limit(limit);
}

function splitNulls<DB, TB extends keyof DB, O>(
  segment: Segment<DB, TB, O>,
  order: Order,
): Segment<DB, TB, O>[] {
  if (segment.fixed || !order.nullable) return [segment];
  const column = sql.ref(order.column);
  return [
    { query: segment.query.where(sql<boolean>`${column} is null`), fixed: { value: null } },
    { query: segment.query.where(sql<boolean>`${column} is not null`) },
  ];
}

/** Each segment is an index range read for at most `limit` rows, merged by UNION ALL. */
export async function rowsAfter<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  segments: Segment<DB, TB, O>[],
  order: Order,
  after: Position | null,
  limit: number,
): Promise<O[]> {
  const queries = segments
    .flatMap((s) => splitNulls(s, order))
    .map((s) => segmentQuery(s, order, after, limit))
    .filter((q) => q !== null);
  if (queries.length === 0) return [];
  if (queries.length === 1) return (await queries[0]!.execute()) as O[];
  const parts = queries.map((q, i) => db.selectFrom(q.as(`s${i}`)).selectAll());
  const union = parts.slice(1).reduce((all, part) => all.unionAll(part), parts[0]!);
  const value = sql.ref(`page.${order.output}`);
  let merged = db.selectFrom(union.as("page")).selectAll();
  if (order.nullable) merged = merged.orderBy(sql`case when ${value} is null then 0 else 1 end`, order.dir);
  merged = merged.orderBy(value, order.dir).orderBy(sql.ref(`page.${order.idOutput}`), order.dir);
  return (await merged.limit(limit).execute()) as O[];
}

/** "1,000+" costs 1,001 index entries, not a million. */
export async function cappedCount<TB extends keyof Database, O>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<Database, TB, O>,
  cap = 1000,
): Promise<{ count: number; capped: boolean }> {
  const { count } = await db
    .selectFrom(
      query
        .clearSelect()
        .select(sql`1`.as("one"))
        .limit(cap + 1)
        .as("capped"),
    )
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  const n = Number(count);
  return { count: Math.min(n, cap), capped: n > cap };
}

type Cursor = Position & { n: number };

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A value the column cannot hold would be a 500 on PostgreSQL, so it is refused here. */
export const cursorValue = {
  timestamp: z
    .string()
    .regex(ISO_MS)
    .refine((v) => !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v),
  text: z.string().max(1000).refine(hasNoNul),
  integer: z
    .number()
    .int()
    .min(-(2 ** 31))
    .max(2 ** 31 - 1),
};

const cursorShape = z.object({
  k: z.string(),
  v: z.union([z.string(), z.number(), z.null()]),
  id: z.string().min(1).max(200).refine(hasNoNul),
  n: z.number().int().min(1).max(1_000_000_000),
});

/** Opaque in the URL, and read back only through decodeCursor's checks. */
export function encodeCursor(key: string, row: Position, n: number): string {
  return Buffer.from(JSON.stringify({ k: key, v: row.value, id: row.id, n })).toString("base64url");
}

/** Null (anything malformed, tampered with or for another order) means "the first page", never an error. */
function decodeCursor(
  key: string,
  text: string | null | undefined,
  value: z.ZodType<SortValue>,
  nullable: boolean,
): Cursor | null {
  if (!text || text.length > 2000) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const shape = cursorShape.safeParse(json);
  if (!shape.success || shape.data.k !== key) return null;
  const v = shape.data.v;
  if (v === null ? !nullable : !value.safeParse(v).success) return null;
  return { value: v, id: shape.data.id, n: shape.data.n };
}

export type PageRequest = { after?: string; before?: string };

export type KeysetPage<R> = { rows: R[]; start: number; prev: string | null; next: string | null };

/** `?before=` walks back: Previous is the same index range read the other way. */
export async function keysetPage<R>(
  request: PageRequest,
  options: {
    key: string;
    size: number;
    value: z.ZodType<SortValue>;
    nullable: boolean;
    positionOf: (row: R) => Position;
    fetch: (after: Position | null, reverse: boolean, limit: number) => Promise<R[]>;
  },
): Promise<KeysetPage<R>> {
  const { key, size, value, nullable, positionOf, fetch } = options;
  const cursor = (row: R, n: number) => encodeCursor(key, positionOf(row), n);
  const after = decodeCursor(key, request.after, value, nullable);
  const before = after ? null : decodeCursor(key, request.before, value, nullable);

  if (before) {
    const rows = await fetch(before, true, size + 1);
    const more = rows.length > size;
    const page = rows.slice(0, size).reverse();
    if (more || page.length === size) {
      const start = more ? Math.max(2, before.n - page.length) : 1;
      return {
        rows: page,
        start,
        prev: more ? cursor(page[0]!, start) : null,
        next: cursor(page.at(-1)!, start + page.length - 1),
      };
    }
  }

  const rows = await fetch(after, false, size + 1);
  // The rows after the cursor went meanwhile: the first page rather than an empty one.
  if (after && rows.length === 0) return keysetPage({}, options);
  const page = rows.slice(0, size);
  const start = after ? after.n + 1 : 1;
  return {
    rows: page,
    start,
    prev: after ? cursor(page[0]!, start) : null,
    next: rows.length > size ? cursor(page.at(-1)!, start + page.length - 1) : null,
  };
}
