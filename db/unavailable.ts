// "The database cannot be reached right now" is answered 503 and goes away by itself; a wrong query is a bug, answered 500.

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

/** Class 08 plus shutdowns, too_many_connections after a restart and a write reaching a standby in a failover. */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "25006"]);

function isUnavailableSqlState(code: string): boolean {
  return code.startsWith("08") || UNAVAILABLE_STATES.has(code);
}

/** What pg says without a code. */
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
