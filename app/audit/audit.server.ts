import { randomUUID } from "node:crypto";
import { createContext, type RouterContextProvider } from "react-router";
import { db, type Executor, now } from "../db.server";
import { currentRequestId } from "../http/request-id.server";
import { clientIp, requestIdOf, userAgent } from "../http/request-info.server";
import type { AuditAction } from "./actions";

export type AuditEntry = {
  action: AuditAction;
  actor?: { id: string; email: string } | null;
  target?: { type: string; id: string | null } | null;
  details?: Record<string, unknown>;
  /** The real person behind `actor` ("View as"); taken from the request when not given. */
  impersonator?: { id: string; email: string } | null;
};

/** Where a change came from: the route's args (the request for the user agent, the context for the IP). */
export type AuditOrigin = { request: Request; context?: Readonly<RouterContextProvider> };

/**
 * The super admin really at the keyboard while a request acts as another account ("View as"). Set
 * by getAuth (app/auth/session.server.ts) when it resolves such a session, so every row written
 * for that request names both, whichever feature writes it.
 */
export const auditImpersonatorContext = createContext<{ id: string; email: string } | null>(null);

function impersonatorOf(origin: AuditOrigin, entry: AuditEntry) {
  if (entry.impersonator !== undefined) return entry.impersonator;
  return origin.context?.get(auditImpersonatorContext) ?? null;
}

const SECRET_KEYS = /password|secret|token|api_?key/i;

/** Replaces the values of secret-looking keys, at any depth, before they reach the log. */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) && v != null ? "[redacted]" : redact(v)]),
    );
  }
  return value;
}

/**
 * The one writer of audit rows. Rows are insert-only: nothing in the product updates or deletes them.
 * A change passes its transaction as `executor`, so the change and its row commit or fail together;
 * events that change nothing else (a failed sign-in, say) use the database directly.
 */
export async function audit(origin: AuditOrigin, entry: AuditEntry, executor: Executor = db()) {
  const impersonator = impersonatorOf(origin, entry);
  await executor
    .insertInto("audit_log")
    .values({
      id: randomUUID(),
      actor_id: entry.actor?.id ?? null,
      actor_email: entry.actor?.email ?? null,
      action: entry.action,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      details: entry.details ? JSON.stringify(redact(entry.details)) : null,
      ip: clientIp(origin.context),
      user_agent: userAgent(origin.request),
      created_at: now(),
      impersonator_id: impersonator?.id ?? null,
      impersonator_email: impersonator?.email ?? null,
      // The id the code runs under first: the task webhook runs its work under the id of the
      // request that started the task (api.webhooks.tasks.ts); otherwise both are the request's.
      request_id: currentRequestId() ?? requestIdOf(origin.context),
    })
    .execute();
}
