import { z } from "zod";
import { hasNoNul } from "../../db/nul";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { NotFound } from "../domain-errors";
import { manageableEndpoint } from "./endpoints.server";

// An endpoint's delivery log: each message with its attempts (time, status code, latency, the first
// 1 KB of the answer), filtered by outcome and type; "Send again" for one message and "Replay
// since" for an outage put messages back in the queue under their own ids.

export const deliveryQuery = z.object({
  status: z.enum(["pending", "delivered", "failed"]).optional().catch(undefined),
  type: z.string().max(60).refine(hasNoNul).optional().catch(undefined),
  limit: z.coerce.number().int().min(1).max(100).catch(50),
});

export type DeliveryView = {
  id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  log: { at: string; statusCode: number | null; latencyMs: number; ok: boolean; response: string }[];
};

export async function listDeliveries(
  endpointId: string,
  q: z.output<typeof deliveryQuery>,
): Promise<DeliveryView[]> {
  let query = db()
    .selectFrom("webhook_message")
    .select(["id", "type", "status", "attempts", "created_at", "delivered_at", "next_attempt_at"])
    .where("endpoint_id", "=", endpointId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(q.limit);
  if (q.status) query = query.where("status", "=", q.status);
  if (q.type) query = query.where("type", "=", q.type);
  const messages = await query.execute();
  const attempts = messages.length
    ? await db()
        .selectFrom("webhook_attempt")
        .selectAll()
        .where(
          "message_id",
          "in",
          messages.map((m) => m.id),
        )
        .orderBy("created_at")
        .execute()
    : [];
  return messages.map((m) => ({
    id: m.id,
    type: m.type,
    status: m.status,
    attempts: Number(m.attempts),
    createdAt: m.created_at,
    deliveredAt: m.delivered_at,
    nextAttemptAt: m.status === "pending" ? m.next_attempt_at : null,
    log: attempts
      .filter((a) => a.message_id === m.id)
      .map((a) => ({
        at: a.created_at,
        statusCode: a.status_code,
        latencyMs: a.latency_ms,
        ok: a.ok === 1,
        response: a.response,
      })),
  }));
}

/** One message back in the queue, due now, under its own id (receivers dedupe on `webhook-id`). */
export async function sendAgain(actor: AuditedActor, messageId: string, origin: AuditOrigin) {
  if (!hasNoNul(messageId)) throw new NotFound("webhooks.messageNotFound");
  const message = await db()
    .selectFrom("webhook_message")
    .select(["id", "endpoint_id", "type"])
    .where("id", "=", messageId)
    .executeTakeFirst();
  if (!message) throw new NotFound("webhooks.messageNotFound");
  await manageableEndpoint(actor, message.endpoint_id);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("webhook_message")
        .set({ status: "pending", attempts: 0, next_attempt_at: now(), locked_until: null })
        .where("id", "=", messageId)
        .execute();
      await audit(
        origin,
        {
          action: "webhook.message.retry",
          actor,
          target: { type: "webhook_endpoint", id: message.endpoint_id },
          details: { message: messageId, type: message.type },
        },
        trx,
      );
    });
}

/** Every message of the endpoint since `since` sent again, in their order; returns how many. */
export async function replaySince(
  actor: AuditedActor,
  endpointId: string,
  since: string,
  origin: AuditOrigin,
) {
  await manageableEndpoint(actor, endpointId);
  return db()
    .transaction()
    .execute(async (trx) => {
      const res = await trx
        .updateTable("webhook_message")
        .set({ status: "pending", attempts: 0, next_attempt_at: now(), locked_until: null })
        .where("endpoint_id", "=", endpointId)
        .where("created_at", ">=", since)
        // A message being sent right now keeps its lease: it is not sent twice at once.
        .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", now())]))
        .executeTakeFirst();
      const count = Number(res.numUpdatedRows);
      await audit(
        origin,
        {
          action: "webhook.replay",
          actor,
          target: { type: "webhook_endpoint", id: endpointId },
          details: { since, count },
        },
        trx,
      );
      return count;
    });
}

/** The daily cleanup: messages and their attempts older than 30 days. */
export async function pruneWebhookLog(at = new Date()): Promise<number> {
  const cutoff = new Date(at.getTime() - 30 * 86_400_000).toISOString();
  const res = await db()
    .deleteFrom("webhook_message")
    .where("created_at", "<", cutoff)
    .where("status", "!=", "pending")
    .executeTakeFirst();
  await db().deleteFrom("webhook_attempt").where("created_at", "<", cutoff).execute();
  return Number(res.numDeletedRows);
}
