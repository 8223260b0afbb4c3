import type { Kysely } from "kysely";
import { dialectOf } from "./connection";

// One migration source, natural types on each engine. Booleans stay `integer` on both
// (docs/decisions/004-postgresql-column-types.md); ids stay `text` because some are not UUIDs.
export function columnTypes(db: Kysely<unknown>) {
  const pg = dialectOf(db) === "postgres";
  return {
    timestamp: pg ? ("timestamptz" as const) : ("text" as const),
    json: pg ? ("jsonb" as const) : ("text" as const),
  };
}
