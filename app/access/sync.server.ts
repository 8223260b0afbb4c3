import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { db, now } from "../db.server";
import { PERMISSIONS } from "./permissions";

export type SyncResult = { inserted: string[]; total: number };

/** Insert-or-ignore of every code-defined permission; shared by the seed and the sync endpoint. */
export async function insertMissingPermissions(executor: Kysely<Database>, ts: string) {
  const inserted: string[] = [];
  const kept: string[] = [];
  for (const p of PERMISSIONS) {
    const row = await executor
      .insertInto("permission")
      .values({ id: randomUUID(), key: p.key, label: p.label, created_at: ts })
      .onConflict((oc) => oc.column("key").doNothing())
      .returning("id")
      .executeTakeFirst();
    (row ? inserted : kept).push(p.key);
  }
  return { inserted, kept };
}

/** Inserts the code-defined permissions missing from the table; touches nothing else. */
export async function syncPermissions(): Promise<SyncResult> {
  const { inserted } = await db()
    .transaction()
    .execute((trx) => insertMissingPermissions(trx, now()));
  const { count } = await db()
    .selectFrom("permission")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return { inserted, total: Number(count) };
}

/** Keys present in the table but no longer in the code list. */
export async function stalePermissions(): Promise<string[]> {
  const known = new Set<string>(PERMISSIONS.map((p) => p.key));
  const rows = await db().selectFrom("permission").select("key").orderBy("key").execute();
  return rows.map((r) => r.key).filter((k) => !known.has(k));
}
