import { randomUUID } from "node:crypto";
import { db } from "../db.server";
import type { CacheName } from "./cluster.server";

// A LISTEN/NOTIFY message arrives when it arrives, and not at all while the listener reconnects, so
// instances sharing a database also leave a new generation there for each cache they clear; the
// others compare it at the start of every request (cluster.server.ts catchUp), decision 041.

export async function bumpGeneration(name: CacheName): Promise<void> {
  const generation = randomUUID();
  await db()
    .insertInto("cache_generation")
    .values({ name, generation })
    .onConflict((oc) => oc.column("name").doUpdateSet({ generation }))
    .execute();
}

export async function readGenerations(): Promise<Map<CacheName, string>> {
  const rows = await db().selectFrom("cache_generation").select(["name", "generation"]).execute();
  return new Map(rows.map((row) => [row.name as CacheName, row.generation]));
}
