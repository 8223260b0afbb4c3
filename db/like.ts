import { type RawBuilder, sql } from "kysely";

/**
 * Case-insensitive "contains" that treats % and _ in the user's text literally, on SQLite and
 * PostgreSQL alike (both honour ESCAPE).
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[%_\\]/g, "\\$&")}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
