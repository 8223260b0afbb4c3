import type { Kysely } from "kysely";
import { createDb } from "../db/connection";
import type { Database } from "../db/schema";
import { env } from "./env.server";
import { traceQuery } from "./http/tracing.server";
import { observeQuery } from "./metrics/metrics.server";

let instance: Kysely<Database> | undefined;

/** The process-wide database handle, opened on first use from DATABASE_URL. */
export function db(): Kysely<Database> {
  if (!instance) {
    const e = env();
    instance = createDb(e.DATABASE_URL, {
      poolSize: e.DATABASE_POOL_SIZE,
      log: (event) => {
        observeQuery(event);
        traceQuery(event);
      },
    });
  }
  return instance;
}

export async function closeDb() {
  await instance?.destroy();
  instance = undefined;
}

/** The database or an open transaction: what a query or an audit row is written through. */
export type Executor = Kysely<Database>;

export function now(): string {
  return new Date().toISOString();
}
