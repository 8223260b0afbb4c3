// Which failures mean "the database cannot be reached right now" (a restart, a failover, a
// network cut) rather than "this query is wrong": the first kind is answered 503 with Retry-After
// (app/http/unavailable.server.ts) and goes away by itself; the second is a bug, answered 500.

/** Socket-level failures node reports while connecting to or talking with the server. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * PostgreSQL SQLSTATEs of the same kind: class 08 (connection exception), 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down), 53300
 * too_many_connections (every instance reconnecting at once after a restart) and 25006
 * read_only_sql_transaction (a write reaching a standby during a failover).
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "25006"]);

function isUnavailableSqlState(code: string): boolean {
  return code.startsWith("08") || UNAVAILABLE_STATES.has(code);
}

/**
 * What pg says without a code: a connection closed under a query, a query on a client that lost
 * its connection, a pool that could not connect within connectionTimeoutMillis (db/connection.ts).
 */
const MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/,
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 3 || typeof error !== "object" || error === null) return false;
  // Connecting to "localhost" tries ::1 and 127.0.0.1: node reports both refusals together.
  if (error instanceof AggregateError) return error.errors.some((e) => isDatabaseUnavailable(e, depth + 1));
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) return true;
  const message = (error as { message?: unknown }).message;
  if (typeof message === "string" && MESSAGES.some((m) => m.test(message))) return true;
  return isDatabaseUnavailable((error as { cause?: unknown }).cause, depth + 1);
}
