import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { createContext, type RouterContextProvider } from "react-router";
import { dialectOf } from "../../db/connection";
import { db, type Executor, now } from "../db.server";
import { currentRequestId } from "../http/request-id.server";
import { clientIp, requestIdOf, userAgent } from "../http/request-info.server";
import { enqueueAuditEvents } from "../webhooks/audit-events.server";
import type { AuditAction } from "./actions";
import { type ChainedFields, KEYED, keyedChainHash } from "./chain";
import { chainKey } from "./signing.server";

export type AuditEntry = {
  action: AuditAction;
  /** A person, or (id null) a system acting on its own: "Directory: Okta". */
  actor?: { id: string | null; email: string } | null;
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
 * The chain's head, read for moving it on: on PostgreSQL the row is locked until `trx` ends, so
 * writers, checkpoints and retention take turns with it. Undefined when the row is gone.
 */
export function lockedHead(trx: Executor) {
  let head = trx.selectFrom("audit_chain").select(["seq", "hash"]).where("id", "=", 1);
  if (dialectOf(trx as Kysely<unknown>) === "postgres") head = head.forUpdate();
  return head.executeTakeFirst();
}

/**
 * Appends a row to the hash chain (app/audit/chain.ts) inside `trx`: the head is read and moved on
 * in the same transaction as the row, so a rolled-back change leaves neither. On PostgreSQL the
 * head's row lock makes concurrent writers take turns (the second reads the head the first
 * committed), so the chain cannot fork; SQLite runs one write transaction at a time anyway.
 */
async function appendChained(trx: Executor, row: Omit<ChainedFields, "seq">) {
  // A missing head is tampering (nothing in the product deletes it): no row is written unchained.
  const head = await lockedHead(trx);
  if (!head)
    throw new Error("the audit chain's head (table audit_chain) is missing: run npm run audit:verify");
  const { seq: last, hash: prevHash } = head;
  const seq = Number(last) + 1;
  // Keyed, so a row added or changed by someone holding only the database does not verify.
  const hash = keyedChainHash(chainKey(), prevHash, { ...row, seq });
  await trx
    .insertInto("audit_log")
    .values({ ...row, seq, prev_hash: prevHash, hash, hash_version: KEYED })
    .execute();
  await trx.updateTable("audit_chain").set({ seq, hash }).where("id", "=", 1).execute();
  // The outgoing webhooks the row gives (audit.entry, user.created …), committed with it.
  await enqueueAuditEvents(trx, { ...row, seq, prev_hash: prevHash, hash, hash_version: KEYED });
}

/**
 * The one writer of audit rows. Rows are insert-only: nothing in the product updates or deletes them
 * but retention (retention.server.ts), and each is a link of the hash chain.
 * A change passes its transaction as `executor`, so the change and its row commit or fail together;
 * events that change nothing else (a failed sign-in, say) use the database directly, in a
 * transaction of their own.
 */
export async function audit(origin: AuditOrigin, entry: AuditEntry, executor: Executor = db()) {
  const impersonator = impersonatorOf(origin, entry);
  const row = {
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
  };
  if (executor.isTransaction) await appendChained(executor, row);
  else await executor.transaction().execute((trx) => appendChained(trx, row));
}
