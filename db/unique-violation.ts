/**
 * A write refused by a unique index or key: PostgreSQL's 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE
 * or _PRIMARYKEY. A concurrent writer got there first; the caller answers or retries.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
