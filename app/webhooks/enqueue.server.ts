import { randomBytes } from "node:crypto";
import { type Executor, now } from "../db.server";
import { ALL_EVENTS } from "./event-types";

// Messages are written in the transaction of the change they report (the caller's `trx`): a
// rolled-back change sends nothing, and a committed one is in the table before anyone could lose
// it. One row per subscribed endpoint; the dispatcher (delivery.server.ts) takes it from there.

export type WebhookEvent = {
  type: string;
  data: Record<string, unknown>;
  /** Messages of one resource reach an endpoint in order of creation ("user:<id>"). */
  resource: string;
};

/** Standard Webhooks' message ids: unique, and the same on every retry of the message. */
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

/** The body every attempt sends: `{type, timestamp, data}`. */
function messageBody(type: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp, data });
}

type Subscriber = { id: string; events: string };

/** Enabled endpoints only: a paused one is sent nothing, not even later. */
export function enabledEndpoints(trx: Executor): Promise<Subscriber[]> {
  return trx.selectFrom("webhook_endpoint").select(["id", "events"]).where("enabled", "=", 1).execute();
}

/** Writes a message of each event to each endpoint subscribed to its type. */
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

/** One message to one endpoint whatever it subscribes to ("Send test"); returns its id. */
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
