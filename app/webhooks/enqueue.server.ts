import { randomBytes } from "node:crypto";
import { type Executor, now } from "../db.server";
import { ALL_EVENTS } from "./event-types";

// Written in the caller's transaction: a rolled-back change sends nothing and a committed one cannot be lost.

export type WebhookEvent = {
  type: string;
  data: Record<string, unknown>;
  resource: string;
};

/** The same on every retry of the message. */
function messageId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

function subscribes(events: string, type: string): boolean {
  try {
    const list = JSON.parse(events) as string[];
    return list.includes(ALL_EVENTS) || list.includes(type);
  } catch {
    return false;
  }
}

function messageBody(type: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp, data });
}

type Subscriber = { id: string; events: string };

/** A paused endpoint is sent nothing, not even later. */
export function enabledEndpoints(trx: Executor): Promise<Subscriber[]> {
  return trx.selectFrom("webhook_endpoint").select(["id", "events"]).where("enabled", "=", 1).execute();
}

export async function enqueueEvents(trx: Executor, events: WebhookEvent[], endpoints?: Subscriber[]) {
  if (events.length === 0) return;
  const to = endpoints ?? (await enabledEndpoints(trx));
  const at = now();
  const rows = events.flatMap((event) =>
    to
      .filter((e) => subscribes(e.events, event.type))
      .map((e) => ({
        id: messageId(),
        endpoint_id: e.id,
        type: event.type,
        body: messageBody(event.type, at, event.data),
        resource: event.resource,
        status: "pending" as const,
        next_attempt_at: at,
        created_at: at,
      })),
  );
  if (rows.length) await trx.insertInto("webhook_message").values(rows).execute();
}

export async function enqueueTo(trx: Executor, endpointId: string, event: WebhookEvent): Promise<string> {
  const at = now();
  const id = messageId();
  await trx
    .insertInto("webhook_message")
    .values({
      id,
      endpoint_id: endpointId,
      type: event.type,
      body: messageBody(event.type, at, event.data),
      resource: event.resource,
      status: "pending",
      next_attempt_at: at,
      created_at: at,
    })
    .execute();
  return id;
}
