import { randomUUID } from "node:crypto";
import { db, now } from "../db.server";
import { PERMISSIONS } from "./permissions";

export type SyncResult = { inserted: string[]; total: number };

/** Inserts the code-defined permissions missing from the table; touches nothing else. */
export async function syncPermissions(): Promise<SyncResult> {
  const ts = now();
  const inserted: string[] = [];
  await db()
    .transaction()
    .execute(async (trx) => {
      for (const p of PERMISSIONS) {
        const row = await trx
          .insertInto("permission")
          .values({ id: randomUUID(), key: p.key, label: p.label, created_at: ts })
          .onConflict((oc) => oc.column("key").doNothing())
          .returning("id")
          .executeTakeFirst();
        if (row) inserted.push(p.key);
      }
    });
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
