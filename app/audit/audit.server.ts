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
  /** Id null: a system acting on its own ("Directory: Okta"). */
  actor?: { id: string | null; email: string } | null;
  target?: { type: string; id: string | null } | null;
  details?: Record<string, unknown>;
  /** The real person behind `actor` ("View as"). */
  impersonator?: { id: string; email: string } | null;
};

export type AuditOrigin = { request: Request; context?: Readonly<RouterContextProvider> };

/** Set by getAuth, so every row written for a "View as" request names both people. */
export const auditImpersonatorContext = createContext<{ id: string; email: string } | null>(null);

function impersonatorOf(origin: AuditOrigin, entry: AuditEntry) {
  if (entry.impersonator !== undefined) return entry.impersonator;
  return origin.context?.get(auditImpersonatorContext) ?? null;
}

const SECRET_KEYS = /password|secret|token|api_?key/i;

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) && v != null ? "[redacted]" : redact(v)]),
    );
  }
  return value;
}

/** On PostgreSQL the row is locked until `trx` ends, so writers take turns with it. */
export function lockedHead(trx: Executor) {
  let head = trx.selectFrom("audit_chain").select(["seq", "hash"]).where("id", "=", 1);
  if (dialectOf(trx as Kysely<unknown>) === "postgres") head = head.forUpdate();
  return head.executeTakeFirst();
}

/** The head moves in the row's transaction and its lock makes concurrent writers take turns, so the chain cannot fork (decision 031). */
async function appendChained(trx: Executor, row: Omit<ChainedFields, "seq">) {
  // A missing head is tampering: no row is written unchained.
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
  await enqueueAuditEvents(trx, { ...row, seq, prev_hash: prevHash, hash, hash_version: KEYED });
}

/** The one writer of audit rows, insert-only links of the hash chain; pass the change's transaction as `executor`. */
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
    // The task webhook runs its work under the id of the request that started the task.
    request_id: currentRequestId() ?? requestIdOf(origin.context),
  };
  if (executor.isTransaction) await appendChained(executor, row);
  else await executor.transaction().execute((trx) => appendChained(trx, row));
}
