import { randomUUID } from "node:crypto";
import { z } from "zod";
import { hasNoNul, NUL_MESSAGE } from "../../db/nul";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { isInOpenedRange, refusedAddressOf } from "../http/outbound.server";
import { enqueueTo } from "./enqueue.server";
import { ALL_EVENTS, mayReceive, permissionForEvent, TEST_EVENT, WEBHOOK_EVENT_TYPES } from "./event-types";
import { newSecret, ROTATION_OVERLAP_MS } from "./secrets.server";

// Webhook endpoints: each change audited, the secret shown once (decision 032).

/** Nobody receives events they could not read in the app. */
function assertMayReceive(actor: AuditedActor, events: readonly string[]) {
  for (const event of events) {
    if (!mayReceive(actor, event))
      throw new RuleViolation("webhooks.eventNotAllowed", {
        event: event === ALL_EVENTS ? "*" : event,
        permission: permissionForEvent(event),
      });
  }
}

const eventList = z
  .array(z.enum([ALL_EVENTS, ...WEBHOOK_EVENT_TYPES]))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((events) => (events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)].sort()));

export const endpointInput = z.object({
  url: z.string().trim().url().max(2_000).refine(hasNoNul, NUL_MESSAGE),
  description: z.string().trim().max(200).refine(hasNoNul, NUL_MESSAGE).default(""),
  events: eventList,
  enabled: z.boolean().default(true),
});

/** POST …/deliveries {since}: "Replay since …". */
export const replay = z.object({
  since: z
    .string()
    .datetime({ offset: true })
    .transform((s) => new Date(s).toISOString()),
});

// Built without defaults: a PATCH that leaves a field out leaves it as it is.
export const endpointPatch = z
  .object({
    url: endpointInput.shape.url,
    description: z.string().trim().max(200).refine(hasNoNul, NUL_MESSAGE),
    events: eventList,
    enabled: z.boolean(),
  })
  .partial()
  .strict();

/** Plain http only to a range OUTBOUND_ALLOW_PRIVATE opens (a receiver on premises, tests). */
function httpAllowed(host: string): boolean {
  return isInOpenedRange(host === "localhost" ? "127.0.0.1" : host.replace(/^\[|\]$/g, ""));
}

async function checkUrl(url: string) {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw new InvalidInput("webhooks.urlCredentials", "url");
  if (parsed.protocol === "http:" && !httpAllowed(parsed.hostname))
    throw new InvalidInput("webhooks.urlHttps", "url");
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw new InvalidInput("webhooks.urlHttps", "url");
  const refused = await refusedAddressOf(url);
  if (refused) throw new InvalidInput("webhooks.urlPrivate", "url", { address: refused });
}

export type EndpointView = {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  secretRotatedUntil: string | null;
  createdAt: string;
  updatedAt: string;
};

type EndpointRow = Awaited<ReturnType<typeof endpointRows>>[number];
function endpointRows() {
  return db().selectFrom("webhook_endpoint").selectAll().orderBy("created_at").execute();
}

function view(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    secretRotatedUntil:
      row.previous_secret_until && Date.parse(row.previous_secret_until) > Date.now()
        ? row.previous_secret_until
        : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listEndpoints(): Promise<EndpointView[]> {
  return (await endpointRows()).map(view);
}

async function endpointRow(id: string): Promise<EndpointRow> {
  // PostgreSQL cannot compare NUL, and no id holds one.
  if (!hasNoNul(id)) throw new NotFound("webhooks.notFound");
  const row = await db().selectFrom("webhook_endpoint").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new NotFound("webhooks.notFound");
  return row;
}

/** They must be allowed every event it receives, or they could point a super admin's stream at themselves. */
export async function manageableEndpoint(actor: AuditedActor, id: string): Promise<EndpointRow> {
  const row = await endpointRow(id);
  assertMayReceive(actor, JSON.parse(row.events) as string[]);
  return row;
}

export async function getEndpoint(id: string): Promise<EndpointView> {
  return view(await endpointRow(id));
}

/** The secret is in the answer and nowhere else readable. */
export async function createEndpoint(
  actor: AuditedActor,
  given: { url: string; description?: string; events: readonly string[]; enabled?: boolean },
  origin: AuditOrigin,
) {
  const input = endpointInput.parse(given);
  assertMayReceive(actor, input.events);
  await checkUrl(input.url);
  const id = `ep_${randomUUID().replaceAll("-", "")}`;
  const secret = newSecret();
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("webhook_endpoint")
        .values({
          id,
          url: input.url,
          description: input.description,
          events: JSON.stringify(input.events),
          enabled: input.enabled ? 1 : 0,
          secret: secret.stored,
          created_by: actor.id,
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      await audit(
        origin,
        {
          action: "webhook.endpoint.create",
          actor,
          target: { type: "webhook_endpoint", id },
          details: { url: input.url, events: input.events, enabled: input.enabled },
        },
        trx,
      );
    });
  return { endpoint: await getEndpoint(id), secret: secret.plain };
}

export async function updateEndpoint(
  actor: AuditedActor,
  id: string,
  patch: z.output<typeof endpointPatch>,
  origin: AuditOrigin,
): Promise<EndpointView> {
  const before = await manageableEndpoint(actor, id);
  if (patch.events !== undefined) assertMayReceive(actor, patch.events);
  if (patch.url !== undefined) await checkUrl(patch.url);
  const enabling = patch.enabled === true && before.enabled === 0;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("webhook_endpoint")
        .set({
          ...(patch.url !== undefined ? { url: patch.url } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
          ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0 } : {}),
          ...(enabling ? { disabled_reason: null, failing_since: null } : {}),
          updated_at: now(),
        })
        .where("id", "=", id)
        .execute();
      await audit(
        origin,
        {
          action: "webhook.endpoint.update",
          actor,
          target: { type: "webhook_endpoint", id },
          details: {
            before: { url: before.url, events: JSON.parse(before.events), enabled: before.enabled === 1 },
            after: patch,
          },
        },
        trx,
      );
    });
  return getEndpoint(id);
}

export async function deleteEndpoint(actor: AuditedActor, id: string, origin: AuditOrigin) {
  const before = await manageableEndpoint(actor, id);
  await db()
    .transaction()
    .execute(async (trx) => {
      // The audit row (and its head lock) first, or an audited change queuing a message here would deadlock with this.
      await audit(
        origin,
        {
          action: "webhook.endpoint.delete",
          actor,
          target: { type: "webhook_endpoint", id },
          details: { url: before.url },
        },
        trx,
      );
      await trx.deleteFrom("webhook_endpoint").where("id", "=", id).execute();
    });
}

/** The old secret keeps signing for 24 hours beside it. */
export async function rotateSecret(actor: AuditedActor, id: string, origin: AuditOrigin) {
  const before = await manageableEndpoint(actor, id);
  const secret = newSecret();
  const until = new Date(Date.now() + ROTATION_OVERLAP_MS).toISOString();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("webhook_endpoint")
        .set({
          secret: secret.stored,
          previous_secret: before.secret,
          previous_secret_until: until,
          updated_at: now(),
        })
        .where("id", "=", id)
        .execute();
      await audit(
        origin,
        {
          action: "webhook.endpoint.rotate",
          actor,
          target: { type: "webhook_endpoint", id },
          details: { previousValidUntil: until },
        },
        trx,
      );
    });
  return { secret: secret.plain, previousSecretValidUntil: until };
}

export async function sendTest(actor: AuditedActor, id: string, origin: AuditOrigin): Promise<string> {
  await manageableEndpoint(actor, id);
  return db()
    .transaction()
    .execute(async (trx) => {
      const messageId = await enqueueTo(trx, id, {
        type: TEST_EVENT,
        resource: `test:${randomUUID()}`,
        data: { message: "A test message from the admin dashboard.", requestedBy: actor.email },
      });
      await audit(
        origin,
        { action: "webhook.endpoint.test", actor, target: { type: "webhook_endpoint", id } },
        trx,
      );
      return messageId;
    });
}
