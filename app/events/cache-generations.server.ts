import { randomUUID } from "node:crypto";
import { db, now } from "../db.server";
import type { CacheName } from "./cluster.server";

// A LISTEN/NOTIFY message arrives when it arrives, and not at all while the listener reconnects, so
// instances sharing a database also leave a new generation there for each cache they clear; the
// others compare it at the start of every request (cluster.server.ts catchUp), decision 041.

const KEY_PREFIX = "cache_generation:";
const NAMES: readonly CacheName[] = ["roles", "menu", "settings", "sessions"];
const KEYS = NAMES.map((name) => KEY_PREFIX + name);

export async function bumpGeneration(name: CacheName): Promise<void> {
  const row = { value: randomUUID(), is_secret: 0, updated_at: now(), updated_by: null };
  await db()
    .insertInto("system_setting")
    .values({ key: KEY_PREFIX + name, ...row })
    .onConflict((oc) => oc.column("key").doUpdateSet(row))
    .execute();
}

export async function readGenerations(): Promise<Map<CacheName, string>> {
  const rows = await db()
    .selectFrom("system_setting")
    .select(["key", "value"])
    .where("key", "in", KEYS)
    .execute();
  return new Map(rows.map((row) => [row.key.slice(KEY_PREFIX.length) as CacheName, row.value]));
}
